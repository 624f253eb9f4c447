# LOCAL SCRATCH (uncommitted)
from __future__ import annotations

from collections.abc import Mapping, Sequence

from tournaments.pairing.scoring import table_points
from tournaments.pairing.types import Entrant, Played, PlayerId, Round, Table


def swiss_round(
    entrants: Sequence[Entrant],
    played: Sequence[Played],
    byes: Mapping[PlayerId, int],
    *,
    seats: int,
    round_number: int,
) -> Round:
    score = {e.id: 0.0 for e in entrants}
    for p in played:
        for k, v in table_points(p).items():
            score[k] = score.get(k, 0) + v
    for k, v in byes.items():
        score[k] = score.get(k, 0) + v
    active = sorted(
        (e for e in entrants if e.active), key=lambda e: (-score[e.id], -e.rating, e.id)
    )
    ids = [e.id for e in active]
    bye = ()
    if len(ids) % seats:
        extra = len(ids) % seats
        cand = sorted(ids, key=lambda p: (byes.get(p, 0), score[p]))[:extra]
        bye = tuple(cand)
        ids = [p for p in ids if p not in cand]
    tables = tuple(Table(tuple(ids[i : i + seats])) for i in range(0, len(ids), seats))
    return Round(tables, bye)
