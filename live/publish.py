"""Publication of every committed match event, already redacted, on the bus.

Runs as a follow-up of the unit of work (``follow_up_register``): inside the transaction it
redacts the change's new events once per seat and once for spectators, exactly as
``GET /events`` would show them to that reader right after the commit
(``presenters.events_shown``); on commit it publishes them, one message per reader, in one Redis
pipeline. No listener ever touches the database to redact, and a rolled-back change
publishes nothing.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from django.db import transaction

from core import json_codec
from games.events import Reader
from games.services import presenters
from games.services.unit_of_work import MatchChange
from live.bus import bus, chat_channel, match_channel, seats_channel


def change_messages(tx: MatchChange) -> list[tuple[str, str]]:
    """One ``(channel, JSON list of events)`` per held seat (its channel names the user who
    holds it as the change commits) and one for spectators; then, if a seat changed hands,
    the occupancy notice every stream of the match listens to. The listeners parse the text,
    so it is written by ``core.json_codec`` (a fraction of the standard library's time, on
    every move)."""
    match, over = tx.match, tx.match.is_over
    messages: list[tuple[str, str]] = []
    if tx.events:
        readers: dict[str, Reader] = {
            match_channel(match.pk, None): presenters.spectator_reader(match)
        }
        for seat in tx.seats:
            if seat.user_id is None:  # open, or a bot without an account: no reader
                continue
            moved = [move.step for move in tx.moves if move.seat == seat.index]
            channel = match_channel(match.pk, seat.index, seat.user_id)
            readers[channel] = presenters.seat_reader_at_commit(match, seat.index, moved)
        messages = [
            (
                channel,
                json_codec.dumps(presenters.events_shown(tx.events, reader, over=over)).decode(),
            )
            for channel, reader in readers.items()
        ]
    if tx.holders_changed():
        # After the events, in the same write. It names each seat's holder (user ids: the
        # notice goes to the streams, never to a client), so a stream whose reader's seat did
        # not change goes on without reading the database.
        holders = [seat.user_id for seat in tx.seats]
        messages.append((seats_channel(match.pk), json.dumps({"seats": holders})))
    return messages


def change_publish(tx: MatchChange) -> None:
    """The unit of work's follow-up: publish the change's events once it has committed."""
    messages = change_messages(tx)
    if messages:
        transaction.on_commit(partial(bus().publish_many, messages), robust=True)


def chat_publish(match_id: Any, message: dict[str, Any]) -> None:
    """``social.chat``'s listener, run after a message commits: its public form on the match's
    chat channel, as a ``{"chat": message}`` object (event batches are JSON lists)."""
    bus().publish_many([(chat_channel(match_id), json.dumps({"chat": message}))])
