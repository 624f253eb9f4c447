"""Plays pairing schedules with results drawn from a seeded generator."""

from __future__ import annotations

import random
from collections.abc import Callable

from tournaments.pairing.types import Played, Round


def play_swiss(
    rounds: int, next_round: Callable[[list[Played], dict[int, int], int], Round], seed: int = 1
) -> tuple[list[Round], list[Played], dict[int, int]]:
    rng = random.Random(seed)
    played: list[Played] = []
    byes: dict[int, int] = {}
    done = []
    for number in range(1, rounds + 1):
        r = next_round(played, byes, number)
        done.append(r)
        for table in r.tables:
            seats = list(range(len(table.players)))
            rng.shuffle(seats)
            played.append(Played(number, table.players, tuple((s,) for s in seats)))
        for p in r.byes:
            byes[p] = byes.get(p, 0) + 1
    return done, played, byes
