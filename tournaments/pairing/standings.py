"""Standings with tie-breaks, and the crosstable.

Order: score, then Buchholz, Sonneborn-Berger, direct encounter, rating (and the player id, so
that the order is total):

- score: the table points of every finished match (scoring.table_points) plus BYE_POINTS per bye;
- Buchholz: the sum of the scores of every opponent met, once per meeting (at k seats every other
  player of the table is an opponent); a bye adds nothing;
- Sonneborn-Berger: over every meeting with every opponent, the points scored against that opponent
  (1, 0.5 or 0: scoring.head_to_head) times the opponent's score;
- direct encounter: the points scored against the players who are level on score, Buchholz and
  Sonneborn-Berger (0 for a player level with nobody).

Withdrawn and disqualified players keep their place in the order and are marked (``active``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.pairing.scoring import BYE_POINTS, head_to_head, table_points
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


def scores(
    entrants: Sequence[Entrant], played: Sequence[Played], byes: Mapping[PlayerId, int]
) -> dict[PlayerId, float]:
    """Every entrant's score: table points plus the byes."""
    total = {e.id: byes.get(e.id, 0) * BYE_POINTS for e in entrants}
    for match in played:
        for player, points in table_points(match).items():
            if player in total:
                total[player] += points
    return total


def _key(value: float) -> float:
    # Sums of thirds and halves: rounding makes equal sums compare equal.
    return round(value, 9)


def standings(
    entrants: Sequence[Entrant], played: Sequence[Played], byes: Mapping[PlayerId, int]
) -> list[Standing]:
    """The ranking by score, then Buchholz, Sonneborn-Berger, direct encounter and rating."""
    score = scores(entrants, played, byes)
    buchholz: dict[PlayerId, float] = defaultdict(float)
    berger: dict[PlayerId, float] = defaultdict(float)
    games: dict[PlayerId, int] = defaultdict(int)
    against: dict[tuple[PlayerId, PlayerId], float] = defaultdict(float)
    for match in played:
        for (a, b), points in head_to_head(match).items():
            if a in score and b in score:
                buchholz[a] += score[b]
                berger[a] += points * score[b]
                against[a, b] += points
        for player in match.players:
            games[player] += 1

    def level(e: Entrant) -> tuple[float, float, float]:
        return (_key(score[e.id]), _key(buchholz[e.id]), _key(berger[e.id]))

    levels = {e.id: level(e) for e in entrants}
    direct: dict[PlayerId, float] = defaultdict(float)
    # From the meetings, not from the groups: a whole field level before round 1 is one group.
    for (a, b), points in against.items():
        if levels[a] == levels[b]:
            direct[a] += points
    order = sorted(
        entrants,
        key=lambda e: (
            -score[e.id],
            -_key(buchholz[e.id]),
            -_key(berger[e.id]),
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
    """Per player, per opponent: the points scored in each finished meeting, in round order.

    The points against one opponent are 1, 0.5 or 0 (finished ahead, level, behind), also at
    tables of more than two seats.
    """
    table: dict[PlayerId, dict[PlayerId, list[float]]] = {e.id: {} for e in entrants}
    for match in sorted(played, key=lambda m: m.round):
        for (a, b), points in head_to_head(match).items():
            if a in table and b in table:
                table[a].setdefault(b, []).append(points)
    return table
