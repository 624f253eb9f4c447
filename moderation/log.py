"""Writing the moderation log: every staff action goes through ``staff_action_record``."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.models import User
from moderation.models import ModerationLogEntry


def staff_action_record(
    *,
    actor: User | None,
    action: str,
    reason: str,
    subject_user: User | None = None,
    subject_type: str = "",
    subject_id: str = "",
    changes: dict[str, object] | None = None,
    now: datetime | None = None,
) -> ModerationLogEntry:
    """Record one staff action (``actor`` None: the system acted). Call it inside the action's
    own transaction, so the log holds exactly the actions that happened."""
    return ModerationLogEntry.objects.create(
        actor=actor,
        action=action,
        reason=reason,
        subject_user=subject_user,
        subject_type=subject_type,
        subject_id=str(subject_id),
        changes=changes or {},
        at=now or timezone.now(),
    )
