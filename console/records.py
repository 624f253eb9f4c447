"""Every console action lands in the moderation log (moderation/log.py) with its reason:
who, when, why, on what, and what changed."""

from __future__ import annotations

from accounts.models import User
from moderation.log import staff_action_record


def staff_record(
    *,
    actor: User,
    action: str,
    reason: str,
    subject_user: User | None = None,
    subject_type: str = "",
    subject_id: str = "",
    changes: dict[str, object] | None = None,
) -> None:
    staff_action_record(
        actor=actor,
        action=action,
        reason=reason,
        subject_user=subject_user,
        subject_type=subject_type,
        subject_id=subject_id,
        changes={k: str(v) for k, v in (changes or {}).items()},
    )
