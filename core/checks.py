"""Refuse to start a production deployment that is configured wrong (docs/deployment.md).

Django system checks, tagged ``facedown``: ``manage.py check`` and every command that runs the
checks (``migrate``, ``runserver``) fail with them, and ``config/startup.py`` runs them before
gunicorn, a Celery worker or beat start. Outside the relaxed modes (``FACEDOWN_MODE=embedded``
or ``DJANGO_DEBUG``) a deployment of several machines needs every one of these settings: a
default here would be one each machine makes up for itself (its own SQLite file, its own
in-process throttles and job queue) or one the public knows (the development secret key).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

TAG = "facedown"
MODES = ("production", "embedded")


@register(TAG)
def production_settings(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    mode = getattr(settings, "FACEDOWN_MODE", "production")
    if mode not in MODES:
        return [
            Error(
                f"FACEDOWN_MODE={mode!r} is not a mode.",
                hint="Use `production` (the default) or `embedded` (one machine, SQLite).",
                id="facedown.E007",
            )
        ]
    if getattr(settings, "FACEDOWN_RELAXED", False):
        return []
    errors: list[CheckMessage] = []
    secret = str(getattr(settings, "SECRET_KEY", "") or "")
    if not secret or secret == getattr(settings, "DEVELOPMENT_SECRET_KEY", None):
        errors.append(
            Error(
                "DJANGO_SECRET_KEY is not set: sessions and password-reset links would be "
                "signed with a key the public knows.",
                hint="Set DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE) to the same long "
                "random value on every machine.",
                id="facedown.E001",
            )
        )
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        errors.append(
            Error(
                "DATABASE_URL is not set: each machine would keep its own SQLite file.",
                hint="Set DATABASE_URL=postgres://user:password@host:5432/facedown, or "
                "FACEDOWN_MODE=embedded for a single machine.",
                id="facedown.E002",
            )
        )
    if not getattr(settings, "REDIS_URL", ""):
        errors.append(
            Error(
                "REDIS_URL is not set: throttles would be counted per process and bot and "
                "deadline jobs queued where no worker runs them.",
                hint="Set REDIS_URL=redis://host:6379/0, or FACEDOWN_MODE=embedded for a "
                "single machine.",
                id="facedown.E003",
            )
        )
    if not settings.ALLOWED_HOSTS:
        errors.append(
            Error(
                "DJANGO_ALLOWED_HOSTS is not set: every request would be refused.",
                hint="Set DJANGO_ALLOWED_HOSTS to the comma-separated host names clients use.",
                id="facedown.E004",
            )
        )
    if getattr(settings, "REDIS_URL", "") and settings.FACEDOWN_TASK_RUNNER == "embedded":
        errors.append(
            Error(
                "FACEDOWN_TASK_RUNNER=embedded outside the embedded mode: bot and deadline "
                "jobs would wait in a thread only `manage.py serve` starts.",
                hint="Leave FACEDOWN_TASK_RUNNER unset (Celery with REDIS_URL).",
                id="facedown.E008",
            )
        )
    return errors
