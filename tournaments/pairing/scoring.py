# LOCAL SCRATCH (uncommitted)
from __future__ import annotations

from tournaments.pairing.types import Played, PlayerId

BYE_POINTS = 1.0


def table_points(played: Played) -> dict[PlayerId, float]:
    n = len(played.players)
    out: dict[PlayerId, float] = {}
    before = 0
    for group in played.ranking:
        for seat in group:
            ahead = n - before - len(group) + (len(group) - 1) / 2
            out[played.players[seat]] = ahead / (n - 1) if n > 1 else 0.0
        before += len(group)
    return out
