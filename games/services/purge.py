"""The periodic purge (docs/data.md, "Retention"): what would otherwise grow for ever.

``data_purge`` runs on Celery beat every ``FACEDOWN_PURGE_SECONDS`` (``games.tasks``), in the
embedded worker on the same interval, and on demand as ``manage.py data_purge``. Each part is
idempotent and bounded, so running it twice or in two places at once only wastes a query.
"""

from __future__ import annotations

from datetime import datetime
from importlib import import_module

from django.conf import settings
from django.utils import timezone

from games.services.archive import archive_sweep
from games.services.consent import invitation_counts_purge
from games.services.idempotency import idempotency_purge

PARTS = ("idempotency", "sessions", "archive", "invitations")


def sessions_purge() -> None:
    """Expired sessions (what ``manage.py clearsessions`` does), for the configured engine."""
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()


def data_purge(
    *, now: datetime | None = None, parts: tuple[str, ...] = PARTS, archive_limit: int = 200
) -> dict[str, int]:
    """Run the purge ``parts``; returns how many rows each removed or archived (sessions: -1,
    Django does not count them)."""
    now = now or timezone.now()
    done: dict[str, int] = {}
    if "idempotency" in parts:
        done["idempotency"] = idempotency_purge(now=now)
    if "sessions" in parts:
        sessions_purge()
        done["sessions"] = -1
    if "archive" in parts:
        done["archive"] = archive_sweep(now=now, limit=archive_limit)
    if "invitations" in parts:
        done["invitations"] = invitation_counts_purge(now=now)
    return done
