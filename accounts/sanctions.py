"""Reading an account's sanctions where every app may: the user row carries their ends
(``moderation/sanctions.py`` writes them), so a check is a comparison, never a query.

Games, social and tournaments call these before anything starts a match, a challenge, a seek
or an entry, and before a chat message; a move is never refused for a suspension (the
suspended player's seats went to the stand-in bot when the suspension began)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from accounts.models import User
from core.errors import ChatMuted, Suspended

#: The end of a sanction without an end date.
FOREVER = datetime(9999, 12, 31, tzinfo=UTC)


def _in_force(until: datetime | None, now: datetime | None) -> bool:
    return until is not None and until > (now or timezone.now())


def play_suspended(user: User, *, now: datetime | None = None) -> bool:
    return _in_force(user.play_suspended_until, now)


def chat_muted(user: User, *, now: datetime | None = None) -> bool:
    return _in_force(user.chat_muted_until, now)


def play_allowed_check(user: User, *, now: datetime | None = None) -> None:
    """403 ``suspended`` while a suspension from play is in force."""
    if play_suspended(user, now=now):
        raise Suspended()


def chat_allowed_check(user: User, *, now: datetime | None = None) -> None:
    """403 ``chat_muted`` while a moderator's chat mute is in force."""
    if chat_muted(user, now=now):
        raise ChatMuted()
