# LOCAL SCRATCH (uncommitted)
from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from tournaments.pairing.types import PlayerId, Round, Table


def round_robin(players: Sequence[PlayerId], seats: int, *, double: bool = False) -> list[Round]:
    ps = list(players)
    if seats == 2:
        if len(ps) % 2:
            ps.append(-1)
        n = len(ps)
        rounds = []
        for r in range(n - 1):
            tables, byes = [], []
            for i in range(n // 2):
                a, b = ps[i], ps[n - 1 - i]
                if -1 in (a, b):
                    byes.append(a if b == -1 else b)
                else:
                    tables.append(Table((a, b) if r % 2 else (b, a)))
            rounds.append(Round(tuple(tables), tuple(byes)))
            ps = [ps[0], ps[-1], *ps[1:-1]]
    else:
        rounds = []
        groups = list(combinations(players, seats))
        while groups:
            used: set[int] = set()
            tables = []
            rest = []
            for g in groups:
                if used.isdisjoint(g):
                    used.update(g)
                    tables.append(Table(g))
                else:
                    rest.append(g)
            groups = rest
            rounds.append(Round(tuple(tables), tuple(p for p in players if p not in used)))
            if len(rounds) > 6:
                break
    if double:
        rounds = rounds + [
            Round(tuple(Table(t.players[::-1]) for t in r.tables), r.byes) for r in rounds
        ]
    return rounds
