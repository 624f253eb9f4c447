"""Standings with their tie-breaks, and the crosstable.

Order: score (table points plus byes), then
- **Buchholz**: the sum of the scores of every opponent met, once per meeting;
- **Sonneborn-Berger**: over every meeting, what you scored against that opponent (1 ahead,
  0.5 level, 0 behind) times their score;
- **direct encounter**: what you scored against the players level with you on score;
- then the rating at entry, then the lower id.
Byes add to the score only. Withdrawn and disqualified players keep their place (``active``
False marks them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.pairing.scoring import pairwise
from tournaments.pairing.swiss import scores_of
from tournaments.pairing.types import Entrant, Played, PlayerId


@dataclass(frozen=True)
class Standing:
    rank: int
    player: PlayerId
    score: float
    buchholz: float
    sonneborn_berger: float
    direct: float
    rating: float
    played: int
    byes: int
    active: bool


def _meetings(played: Sequence[Played]) -> list[tuple[PlayerId, PlayerId, float]]:
    """(player, opponent, what the player scored against them) for every meeting."""
    return [
        (player, other, pairwise(table, player, other))
        for table in played
        for player in table.players
        for other in table.players
        if other != player
    ]


def standings(
    entrants: Sequence[Entrant], played: Sequence[Played], byes: Mapping[PlayerId, int]
) -> list[Standing]:
    score = scores_of(entrants, played, byes)
    meetings = _meetings(played)
    buchholz = dict.fromkeys(score, 0.0)
    berger = dict.fromkeys(score, 0.0)
    for player, other, points in meetings:
        buchholz[player] = buchholz.get(player, 0.0) + score.get(other, 0.0)
        berger[player] = berger.get(player, 0.0) + points * score.get(other, 0.0)
    direct = dict.fromkeys(score, 0.0)
    for player, other, points in meetings:
        if score.get(player) == score.get(other):
            direct[player] = direct.get(player, 0.0) + points
    games = {e.id: 0 for e in entrants}
    for table in played:
        for player in table.players:
            games[player] = games.get(player, 0) + 1
    order = sorted(
        entrants,
        key=lambda e: (
            -score[e.id],
            -buchholz[e.id],
            -berger[e.id],
            -direct[e.id],
            -e.rating,
            e.id,
        ),
    )
    return [
        Standing(
            rank=rank,
            player=e.id,
            score=score[e.id],
            buchholz=buchholz[e.id],
            sonneborn_berger=berger[e.id],
            direct=direct[e.id],
            rating=e.rating,
            played=games[e.id],
            byes=byes.get(e.id, 0),
            active=e.active,
        )
        for rank, e in enumerate(order, start=1)
    ]


def crosstable(
    entrants: Sequence[Entrant], played: Sequence[Played]
) -> dict[PlayerId, dict[PlayerId, list[float]]]:
    """Per player, per opponent: what they scored against them in each finished meeting, in
    round order."""
    cells: dict[PlayerId, dict[PlayerId, list[float]]] = {e.id: {} for e in entrants}
    for table in sorted(played, key=lambda t: t.round):
        for player in table.players:
            for other in table.players:
                if other != player:
                    cells.setdefault(player, {}).setdefault(other, []).append(
                        pairwise(table, player, other)
                    )
    return cells
