# LOCAL SCRATCH (uncommitted)
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.pairing.scoring import BYE_POINTS, table_points
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


def standings(
    entrants: Sequence[Entrant], played: Sequence[Played], byes: Mapping[PlayerId, int]
) -> list[Standing]:
    score = {e.id: byes.get(e.id, 0) * BYE_POINTS for e in entrants}
    count = {e.id: 0 for e in entrants}
    for p in played:
        for k, v in table_points(p).items():
            score[k] = score.get(k, 0) + v
            count[k] = count.get(k, 0) + 1
    order = sorted(entrants, key=lambda e: (-score[e.id], -e.rating, e.id))
    return [
        Standing(
            i + 1,
            e.id,
            score[e.id],
            0.0,
            0.0,
            0.0,
            e.rating,
            count[e.id],
            byes.get(e.id, 0),
            e.active,
        )
        for i, e in enumerate(order)
    ]


def crosstable(
    entrants: Sequence[Entrant], played: Sequence[Played]
) -> dict[PlayerId, dict[PlayerId, list[float]]]:
    out: dict[PlayerId, dict[PlayerId, list[float]]] = {e.id: {} for e in entrants}
    for p in sorted(played, key=lambda p: p.round):
        pts = table_points(p)
        for a in p.players:
            for b in p.players:
                if a != b:
                    out.setdefault(a, {}).setdefault(b, []).append(pts[a])
    return out
