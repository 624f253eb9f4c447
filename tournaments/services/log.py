"""The tournament's own events: every organiser and system action, with its author.

Numbered under the tournament row's lock (``events_seq``), so the console lists them in the
order they happened. Their data is public: names, round numbers, reasons; never a move.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import F

from accounts.models import User
from tournaments.models import Tournament, TournamentEvent

#: Every type a tournament event may have (docs/api.md, "Tournaments").
TYPES = (
    "created",
    "joined",
    "withdrew",
    "player_added",
    "invited",
    "declined",
    "disqualified",
    "started",
    "round_started",
    "round_finished",
    "round_limit",
    "paused",
    "resumed",
    "ended",
    "finished",
    "paired",
    "berserk",
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
    # Counted in the row (locked by the caller), not in this instance: another instance of
    # the same tournament in the same transaction may have added an event already.
    Tournament.objects.filter(pk=tournament.pk).update(events_seq=F("events_seq") + 1)
    tournament.events_seq = Tournament.objects.values_list("events_seq", flat=True).get(
        pk=tournament.pk
    )
    return TournamentEvent.objects.create(
        tournament=tournament,
        seq=tournament.events_seq,
        type=kind,
        at=at,
        author=author,
        data=data,
    )
