"""The social app's part in closing and exporting an account (``accounts.hooks``)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.events import timestamp
from social.models import ChatMessage, ChatMute, Seek


def player_close(user: User) -> None:
    """A closing account stops seeking and muting; its messages stay, under its new name."""
    Seek.objects.filter(user=user, status=Seek.Status.OPEN).update(status=Seek.Status.CANCELLED)
    ChatMute.objects.filter(user=user).delete()


def player_export(user: User) -> dict[str, Any]:
    messages = ChatMessage.objects.filter(author=user).order_by("at", "pk")
    return {
        "chat_messages": [
            {"match": str(m.match_id), "seq": m.seq, "at": timestamp(m.at), "text": m.text}
            for m in messages
        ]
    }
