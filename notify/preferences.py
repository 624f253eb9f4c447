"""A user's notification settings: read, changed, and whether mail may go to them."""

from __future__ import annotations

import secrets
from typing import Any

from accounts.models import User
from notify.kinds import Kind
from notify.models import NotificationSettings

#: The preference deciding whether a kind is mailed; kinds not listed are never mailed.
MAIL_PREFERENCE: dict[Kind, str] = {
    "your_move": "email_your_move",
    "deadline_soon": "email_deadline_soon",
    "match_finished": "email_match_finished",
    "invited": "email_invited",
    "auto_vacation": "email_deadline_soon",
    "proposal": "email_proposals",
    "proposal_answered": "email_proposals",
    "tournament_registration_open": "email_tournaments",
    "tournament_round_started": "email_tournaments",
    "tournament_stand_in": "email_tournaments",
    "tournament_finished": "email_tournaments",
}
#: The same for Web Push.
PUSH_PREFERENCE: dict[Kind, str] = {
    "your_move": "push_your_move",
    "deadline_soon": "push_deadline_soon",
    "auto_vacation": "push_deadline_soon",
    "proposal": "push_proposals",
    "proposal_answered": "push_proposals",
    "tournament_registration_open": "push_tournaments",
    "tournament_round_started": "push_tournaments",
    "tournament_stand_in": "push_tournaments",
    "tournament_finished": "push_tournaments",
}
CHANGEABLE = frozenset({*MAIL_PREFERENCE.values(), *PUSH_PREFERENCE.values()})


def settings_of(user_id: int) -> NotificationSettings:
    found, _ = NotificationSettings.objects.get_or_create(user_id=user_id)
    return found


def email_verified(user: User, prefs: NotificationSettings) -> bool:
    return bool(user.email) and prefs.verified_email.casefold() == user.email.casefold()


def mail_allowed(user: User, prefs: NotificationSettings, preference: str | None) -> bool:
    """Mail goes only to an active account's verified address, and only if wanted."""
    wanted = preference is None or bool(getattr(prefs, preference))
    return user.is_active and email_verified(user, prefs) and wanted


def preferences_update(*, user: User, changes: dict[str, Any]) -> NotificationSettings:
    prefs = settings_of(user.pk)
    for name, value in changes.items():
        assert name in CHANGEABLE
        setattr(prefs, name, bool(value))
    if changes:
        prefs.save(update_fields=sorted(changes))
    return prefs


def calendar_key_reset(*, user: User) -> NotificationSettings:
    prefs = settings_of(user.pk)
    prefs.calendar_key = secrets.token_urlsafe(24)
    prefs.save(update_fields=["calendar_key"])
    return prefs
