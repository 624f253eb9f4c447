"""Match chat: seated players talk, everyone who may read the match reads (docs/api.md, "Chat").

Messages live in their own table with their own numbering (``seq`` from 1 per match); they are
never match events and never touch the match row, so a match's ``version``, ``last_seq`` and
ETag do not change when someone talks. A message locks only the match's chat room row.

Listeners registered with ``chat_listener_register`` receive each new message (its public form)
after the message commits: the hook for a live stream to carry ``chat`` events.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.lookup import user_named
from accounts.models import User
from accounts.sanctions import chat_allowed_check
from core.display_text import display_text_problem
from core.errors import ChatDisabled, NotFound, NotSeated, PermissionDenied, ValidationFailed
from core.text import characters_from_one
from games.events import timestamp
from games.models import Match, Seat
from social.locks import chat_room_lock
from social.models import ChatMessage, ChatMute, ChatRoom

CHAT_PAGE = 200

ChatListener = Callable[[uuid.UUID, dict[str, Any]], None]
_listeners: list[ChatListener] = []


def chat_listener_register(listener: ChatListener) -> None:
    """``listener(match_id, message)`` runs after each new message commits."""
    if listener not in _listeners:
        _listeners.append(listener)


def chat_listener_unregister(listener: ChatListener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def _chat_match(match_id: uuid.UUID) -> Match:
    match = Match.objects.only("id", "chat").filter(pk=match_id).first()
    if match is None:
        raise NotFound(gettext_noop("No match with this id."))
    if not match.chat:
        raise ChatDisabled()
    return match


def chat_post(
    *, match_id: uuid.UUID, user: User, text: str, now: datetime | None = None
) -> dict[str, Any]:
    """A seated player's message; spectators read only; none while a moderator's chat mute
    is in force (403 ``chat_muted``). ``now``: the message's time."""
    match = _chat_match(match_id)
    seat = Seat.objects.filter(match=match, user=user).values_list("index", flat=True).first()
    if seat is None:
        raise NotSeated(
            gettext_noop("Only seated players write in a match's chat; spectators read it.")
        )
    now = now or timezone.now()
    chat_allowed_check(user, now=now)
    text = text.strip()
    limit = settings.FACEDOWN_CHAT_MAX_LENGTH
    if not text or len(text) > limit:
        raise ValidationFailed({"text": [characters_from_one(limit)]})
    problem = display_text_problem(text)
    if problem is not None:
        raise ValidationFailed({"text": [problem]})
    with transaction.atomic():
        room = chat_room_lock(match.pk)
        room.last_seq += 1
        room.save(update_fields=["last_seq"])
        message = ChatMessage.objects.create(
            match=match, seq=room.last_seq, author=user, seat=seat, text=text, at=now
        )
        public = message_resource(message, author=user.username)
        for listener in _listeners:
            transaction.on_commit(partial(listener, match.pk, public))
    return public


def chat_read(
    *, match_id: uuid.UUID, user: User, after: int
) -> tuple[list[dict[str, Any]], bool, int]:
    """Messages after ``after`` for ``user``: without muted senders, hidden ones without text.
    Returns (messages, whether more follow, the room's last seq)."""
    match = _chat_match(match_id)
    last_seq = ChatRoom.objects.filter(match=match).values_list("last_seq", flat=True).first()
    muted = ChatMute.objects.filter(user=user).values("muted")
    rows = list(
        ChatMessage.objects.filter(match=match, seq__gt=after)
        .exclude(author__in=muted)
        .select_related("author")
        .order_by("seq")[: CHAT_PAGE + 1]
    )
    staff = user.is_staff
    messages = [message_resource(row, staff=staff) for row in rows[:CHAT_PAGE]]
    return messages, len(rows) > CHAT_PAGE, last_seq or 0


def message_resource(
    message: ChatMessage, *, author: str | None = None, staff: bool = False
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "seq": message.seq,
        "player": author or message.author.username,
        "seat": message.seat,
        "at": timestamp(message.at),
        "text": None if message.hidden and not staff else message.text,
        "hidden": message.hidden,
    }
    if staff and message.hidden:
        body["hidden_reason"] = message.hidden_reason
    return body


def chat_hide(*, match_id: uuid.UUID, seq: int, operator: User, reason: str) -> dict[str, Any]:
    """An operator hides a message from everyone but operators, with a reason kept on it."""
    if not operator.is_staff:
        raise PermissionDenied(gettext_noop("Only operators hide chat messages."))
    reason = reason.strip()
    if not reason:
        raise ValidationFailed({"reason": [gettext_noop("A reason is required.")]})
    problem = display_text_problem(reason)
    if problem is not None:
        raise ValidationFailed({"reason": [problem]})
    with transaction.atomic():
        message = (
            ChatMessage.objects.select_for_update()
            .select_related("author")
            .filter(match_id=match_id, seq=seq)
            .first()
        )
        if message is None:
            raise NotFound(gettext_noop("No chat message with this number."))
        message_hide(message, operator=operator, reason=reason)
    return message_resource(message, staff=True)


def message_hide(message: ChatMessage, *, operator: User, reason: str) -> None:
    message.hidden, message.hidden_reason = True, reason[:200]
    message.hidden_by, message.hidden_at = operator, timezone.now()
    message.save(update_fields=["hidden", "hidden_reason", "hidden_by", "hidden_at"])


def mutes_of(user: User) -> list[str]:
    return list(
        ChatMute.objects.filter(user=user)
        .order_by("muted__username")
        .values_list("muted__username", flat=True)
    )


def mute_set(*, user: User, player: str, muted: bool) -> list[str]:
    """Mute (or unmute) ``player``'s messages for ``user``, in every match."""
    other = user_named(player)
    if other is None:
        raise NotFound(gettext_noop("No player with this name."))
    if other.pk == user.pk:
        raise ValidationFailed({"player": [gettext_noop("You cannot mute yourself.")]})
    if muted:
        ChatMute.objects.get_or_create(user=user, muted=other)
    else:
        ChatMute.objects.filter(user=user, muted=other).delete()
    return mutes_of(user)
