"""Benchmark: a 1,000-player Swiss tournament, its pairing and standings.

    .venv/bin/python bench/tournament_scale.py [--players 1000] [--rounds 10] [--seed 1]

Pure (no database): plays ``--rounds`` Swiss rounds of 2-seat matches through
tournaments.pairing.swiss_round with results drawn from a seeded generator (a fifth drawn, the
rest decided with the higher rating winning two times in three), and after each round prints the
time of pairing the next round and of the standings with their tie-breaks and of the crosstable.
1,000 players make 500 matches a round: 10 rounds are 5,000 finished matches.
docs/benchmarks.md ("Tournaments at 1,000 players") keeps the results.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
T = TypeVar("T")

from tournaments.pairing.standings import crosstable, standings  # noqa: E402
from tournaments.pairing.swiss import swiss_round  # noqa: E402
from tournaments.pairing.types import Entrant, Played  # noqa: E402


def result(rng: random.Random, a: Entrant, b: Entrant) -> tuple[tuple[int, ...], ...]:
    if rng.random() < 0.2:
        return ((0, 1),)
    favourite_first = a.rating >= b.rating
    wins = rng.random() < 2 / 3
    return ((0,), (1,)) if favourite_first == wins else ((1,), (0,))


def timed(work: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = work()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    field = [Entrant(i, rng.gauss(25, 8)) for i in range(1, args.players + 1)]
    by_id = {e.id: e for e in field}
    played: list[Played] = []
    byes: dict[int, int] = {}
    heads = ("played", "matches", "swiss_round s", "standings s", "crosstable s")
    print(" ".join(f"{h:>14}" for h in heads))
    for number in range(1, args.rounds + 2):
        pairing, pair_s = timed(
            partial(swiss_round, field, played, byes, seats=2, round_number=number)
        )
        _, stand_s = timed(lambda: standings(field, played, byes))
        _, cross_s = timed(lambda: crosstable(field, played))
        figures = (f"{number - 1}", f"{len(played)}", f"{pair_s:.3f}", f"{stand_s:.3f}")
        print(" ".join(f"{f:>14}" for f in (*figures, f"{cross_s:.3f}")))
        if number > args.rounds:
            break
        for table in pairing.tables:
            a, b = (by_id[p] for p in table.players)
            played.append(Played(number, table.players, result(rng, a, b)))
        for p in pairing.byes:
            byes[p] = byes.get(p, 0) + 1


if __name__ == "__main__":
    main()
