"""The social app's part in closing and exporting an account (``accounts.hooks``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from django.utils import timezone

from accounts.models import User
from core.errors import ChallengeClosed
from games.events import timestamp
from games.models import DeclineReason
from social.challenges import challenge_cancel, challenge_decline
from social.models import Challenge, ChatMessage, ChatMute, Seek


def seeks_cancel(user: User) -> None:
    """It stops seeking."""
    Seek.objects.filter(user=user, status=Seek.Status.OPEN).update(status=Seek.Status.CANCELLED)


def _pending(**who: Any) -> list[Any]:
    pending = Challenge.objects.filter(
        status=Challenge.Status.PENDING, expires_at__gt=timezone.now(), **who
    )
    return list(pending.values_list("pk", flat=True).order_by("created_at", "pk"))


def challenges_cancel(user: User) -> None:
    """Its pending challenges (to a user, or open to anyone) are canceled: nobody can accept
    them any more, and the challenged user hears of it (``challenge_canceled``)."""
    for challenge_id in _pending(challenger=user):
        with contextlib.suppress(ChallengeClosed):  # answered meanwhile
            challenge_cancel(challenge_id=challenge_id, user=user)


def challenges_decline(user: User) -> None:
    """Challenges to it are declined (``generic``): the challenger hears of it."""
    for challenge_id in _pending(to=user):
        with contextlib.suppress(ChallengeClosed):
            challenge_decline(
                challenge_id=challenge_id, user=user, reason=DeclineReason.GENERIC.value
            )


def mutes_drop(user: User) -> None:
    """It mutes nobody any more; its messages stay, under its new name."""
    ChatMute.objects.filter(user=user).delete()


#: What a closing account leaves open here, closed in this order, one function per kind.
CLOSERS: tuple[Callable[[User], None], ...] = (
    seeks_cancel,
    challenges_cancel,
    challenges_decline,
    mutes_drop,
)


def player_close(user: User) -> None:
    for close in CLOSERS:
        close(user)


def player_export(user: User) -> dict[str, Any]:
    messages = ChatMessage.objects.filter(author=user).order_by("at", "pk")
    return {
        "chat_messages": [
            {"match": str(m.match_id), "seq": m.seq, "at": timestamp(m.at), "text": m.text}
            for m in messages
        ]
    }
