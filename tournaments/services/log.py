"""The tournament's own events: every organiser and system action, with its author.

Numbered under the tournament row's lock (``events_seq``), so the console lists them in the
order they happened. Their data is public: names, round numbers, reasons; never a move.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from accounts.models import User
from tournaments.models import Tournament, TournamentEvent

#: Every type a tournament event may have (docs/api.md, "Tournaments").
TYPES = (
    "created",
    "joined",
    "withdrew",
    "player_added",
    "disqualified",
    "started",
    "round_started",
    "round_finished",
    "round_limit",
    "paused",
    "resumed",
    "ended",
    "finished",
)


def event_add(
    tournament: Tournament,
    kind: str,
    *,
    at: datetime,
    author: User | None = None,
    **data: Any,
) -> TournamentEvent:
    """Record one event of a tournament whose row the caller holds locked."""
    assert kind in TYPES, kind
    tournament.events_seq += 1
    Tournament.objects.filter(pk=tournament.pk).update(events_seq=tournament.events_seq)
    return TournamentEvent.objects.create(
        tournament=tournament,
        seq=tournament.events_seq,
        type=kind,
        at=at,
        author=author,
        data=data,
    )
