"""What the pairing library is given: the entrants, the finished tables, the byes.

Only tables whose result was recorded (``ranking`` set when the match finished, or a forfeit)
are ever read: nothing of a match in progress reaches a pairing, a standing or an export.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tournaments.models import Entry, Tournament, TournamentBye, TournamentMatch
from tournaments.pairing.types import Entrant, Played


@dataclass(frozen=True)
class Results:
    entrants: list[Entrant]
    played: list[Played]
    byes: dict[int, int]
    #: Every entry (joined) by user id, for names and statuses.
    entries: dict[int, Entry]


def entries_of(tournament: Tournament) -> dict[int, Entry]:
    rows = (
        tournament.entries.filter(joined=True).select_related("user").order_by("-rating", "user_id")
    )
    return {entry.user_id: entry for entry in rows}


def results_of(tournament: Tournament) -> Results:
    entries = entries_of(tournament)
    entrants = [
        Entrant(id=user_id, rating=entry.rating, active=entry.status == Entry.Status.ACTIVE)
        for user_id, entry in entries.items()
    ]
    tables = (
        TournamentMatch.objects.filter(round__tournament=tournament, ranking__isnull=False)
        .select_related("round")
        .order_by("round__number", "pk")
    )
    played = [
        Played(
            round=table.round.number,
            players=tuple(table.players),
            ranking=tuple(tuple(group) for group in table.ranking or ()),
            forfeited=tuple(table.forfeited or ()),
        )
        for table in tables
    ]
    byes = Counter(
        TournamentBye.objects.filter(round__tournament=tournament).values_list("user_id", flat=True)
    )
    return Results(entrants=entrants, played=played, byes=dict(byes), entries=entries)
