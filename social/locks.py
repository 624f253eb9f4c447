"""Every row lock of the social app.

Lock order: a seek takes its pool's lock first (``seek_pool_lock``), then creates and starts
the paired match through the games services (which lock only that new match); a chat message
locks only its match's ``ChatRoom`` row, never the match row, so chat never waits for a move
and a move never waits for chat. No transaction holds two pool locks or two rooms.
"""

from __future__ import annotations

import uuid

from django.db import connection

from social.models import ChatRoom


def seek_pool_lock(pool: str) -> None:
    """Serialise pairing within one pool until the transaction ends.

    Two seeks that arrive together must not both find the pool empty and both wait: on
    PostgreSQL a transaction-scoped advisory lock keyed by the pool makes the second wait until
    the first has committed, and its queries then see the first seek. On SQLite (the embedded
    default) writers are serialised by the IMMEDIATE transaction mode already.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int(pool[:15], 16)])


def chat_room_lock(match_id: uuid.UUID) -> ChatRoom:
    """The match's chat room, created if needed, locked until the transaction ends."""
    ChatRoom.objects.get_or_create(match_id=match_id)
    return ChatRoom.objects.select_for_update().get(match_id=match_id)
