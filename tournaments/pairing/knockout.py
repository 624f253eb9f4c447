# LOCAL SCRATCH (uncommitted)
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from tournaments.pairing.types import Entrant, Played, PlayerId, Round, Table


def knockout_round(alive: Sequence[Entrant], *, seats: int) -> Round:
    order = sorted(alive, key=lambda e: (-e.rating, e.id))
    ids = [e.id for e in order]
    size = 1
    while size < len(ids):
        size *= 2
    nbyes = size - len(ids)
    byes = tuple(ids[:nbyes])
    rest = ids[nbyes:]
    tables = tuple(Table((rest[i], rest[-1 - i])) for i in range(len(rest) // 2))
    return Round(tables, byes)


def knockout_advancing(
    played: Played, *, seats: int, entrants: Mapping[PlayerId, Entrant], rule: str
) -> tuple[PlayerId, ...] | None:
    top = played.ranking[0]
    if len(top) == 1:
        return (played.players[top[0]],)
    if rule == "replay":
        return None
    best = max((played.players[s] for s in top), key=lambda p: (entrants[p].rating, -p))
    return (best,)


def knockout_rounds_needed(players: int, seats: int) -> int:
    return max(1, math.ceil(math.log2(max(players, 2))))
