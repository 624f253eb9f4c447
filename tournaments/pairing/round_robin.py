"""Round-robin schedules for tables of 2 to k seats.

Two seats: the circle method. The first player stays, the others rotate one place per round; an
odd count adds an empty place whose partner has the bye, so everyone has exactly one bye per cycle
and every pair meets exactly once. The fixed player alternates seats; the other pairs alternate by
their position.

More seats: a greedy over rounds, until every pair has shared a table at least once. Each round
has tables whose sizes differ by at most one (layout.table_sizes); the byes, when the numbers force
them, go to the players with the fewest byes so far (earliest last bye, then the rotation of the
round). Each table starts with the unplaced player who still has the most unmet unplaced players
and is filled with the player whose meetings at that table cost least, then at most
``4 x players`` improving swaps between tables; of ``ATTEMPTS`` player orders (the first as
given, the others shuffled by a generator seeded with the round) the cheapest round is kept. The
whole schedule is built under two costs (first meetings free and repeats dear; or every meeting
costing, a repeat four times a first one) and the shorter, then the more even, is kept. Measured
for 3 to 6 seats and 3 to 16 players (tests/tournaments/test_pairing_round_robin.py): every pair
meets; two pairs' meeting counts differ by at most 2, except 10 players at 5 or 6 seats (two
tables), where they differ by up to ``REPEAT_BOUND`` = 4.

``double`` plays the whole schedule twice, the second time with the seat order reversed.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from itertools import combinations

from tournaments.pairing.layout import table_sizes
from tournaments.pairing.types import PlayerId, Round, Table

# Measured, not proven: the greedy closes the last unmet pairs with rounds of repeats.
REPEAT_BOUND = 4
ATTEMPTS = 3


def round_robin(
    players: Sequence[PlayerId], seats: int, *, double: bool = False, min_seats: int = 2
) -> list[Round]:
    """Every round of a round robin of ``players`` at tables of ``seats``.

    ``min_seats``: the smallest table the game allows; fewer players than that sit out (a bye).
    """
    ids = list(players)
    rounds = _circle(ids) if seats == 2 else _best_greedy(ids, seats, min_seats)
    if double:
        rounds += [Round(tuple(Table(t.players[::-1]) for t in r.tables), r.byes) for r in rounds]
    return rounds


def _circle(ids: list[PlayerId]) -> list[Round]:
    ring: list[PlayerId | None] = [*ids, None] if len(ids) % 2 else list(ids)
    n = len(ring)
    rounds = []
    for number in range(n - 1):
        tables = []
        byes: list[PlayerId] = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                byes.extend(p for p in (a, b) if p is not None)
                continue
            swap = number % 2 == 1 if i == 0 else i % 2 == 1
            tables.append(Table((b, a) if swap else (a, b)))
        rounds.append(Round(tuple(tables), tuple(byes)))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _cover_first(count: int) -> int:
    # A first meeting is free, every repeat costs, a repeat of a repeat ten times as much.
    return int(0 if count == 0 else 100 + 10**count)


def _even_first(count: int) -> int:
    # Every meeting costs, a repeat four times as much as a first one.
    return int(4**count)


Cost = Callable[[int], int]


def _best_greedy(ids: list[PlayerId], seats: int, min_seats: int) -> list[Round]:
    """The greedy under both costs; the shorter schedule, then the more even one."""

    def spread(rounds: list[Round]) -> int:
        met: dict[frozenset[PlayerId], int] = defaultdict(int)
        for r in rounds:
            for t in r.tables:
                for a, b in combinations(t.players, 2):
                    met[frozenset((a, b))] += 1
        counts = [met[frozenset(pair)] for pair in combinations(ids, 2)]
        return max(counts, default=0) - min(counts, default=0)

    tries = [_greedy(ids, seats, min_seats, cost) for cost in (_cover_first, _even_first)]
    return min(tries, key=lambda rounds: (len(rounds), spread(rounds)))


def _greedy(ids: list[PlayerId], seats: int, min_seats: int, cost: Cost) -> list[Round]:
    met: dict[tuple[PlayerId, PlayerId], int] = defaultdict(int)
    bye_count: dict[PlayerId, int] = defaultdict(int)
    last_bye: dict[PlayerId, int] = defaultdict(lambda: -1)
    unmet = {frozenset(pair) for pair in combinations(ids, 2)}
    sizes, bye_total = table_sizes(len(ids), seats, min_seats)
    rounds: list[Round] = []
    if not sizes:
        return rounds
    limit = len(unmet) + 1
    while unmet and len(rounds) < limit:
        number = len(rounds)
        rotation = {p: (i - number) % len(ids) for i, p in enumerate(ids)}
        byes = sorted(ids, key=lambda p: (bye_count[p], last_bye[p], rotation[p]))[:bye_total]
        free = [p for p in ids if p not in byes]
        tables = _best_of(free, sizes, met, number, cost)
        for table in tables:
            for a, b in combinations(table, 2):
                met[a, b] += 1
                met[b, a] += 1
                unmet.discard(frozenset((a, b)))
        for p in byes:
            bye_count[p] += 1
            last_bye[p] = number
        rounds.append(
            Round(
                tuple(Table(tuple(t[number % len(t) :] + t[: number % len(t)])) for t in tables),
                tuple(byes),
            )
        )
    return rounds


def _best_of(
    free: list[PlayerId],
    sizes: list[int],
    met: dict[tuple[PlayerId, PlayerId], int],
    number: int,
    cost: Cost,
) -> list[list[PlayerId]]:
    # The greedy depends on the order it meets the players in; the seeded generator gives the
    # same schedule for the same players every time.
    shuffle = random.Random(number)
    best: list[list[PlayerId]] = []
    best_cost = None
    for attempt in range(ATTEMPTS):
        order = list(free)
        if attempt:
            shuffle.shuffle(order)
        tables = _fill(order, sizes, met, cost)
        _swap(tables, met, 4 * len(free), cost)
        total = sum(_table_cost(t, met, cost) for t in tables)
        if best_cost is None or total < best_cost:
            best, best_cost = tables, total
    return best


def _fill(
    free: list[PlayerId], sizes: list[int], met: dict[tuple[PlayerId, PlayerId], int], cost: Cost
) -> list[list[PlayerId]]:
    left = list(free)
    tables: list[list[PlayerId]] = []
    for size in sizes:

        def fresh(p: PlayerId) -> int:
            return sum(1 for q in left if q != p and met[p, q] == 0)

        first = max(left, key=lambda p: (fresh(p), -left.index(p)))
        table = [first]
        left.remove(first)
        while len(table) < size:
            best = min(
                left,
                key=lambda p: (sum(cost(met[p, q]) for q in table), -fresh(p), left.index(p)),
            )
            table.append(best)
            left.remove(best)
        tables.append(table)
    return tables


def _table_cost(
    table: list[PlayerId], met: dict[tuple[PlayerId, PlayerId], int], cost: Cost
) -> int:
    return sum(cost(met[a, b]) for a, b in combinations(table, 2))


def _swap(
    tables: list[list[PlayerId]],
    met: dict[tuple[PlayerId, PlayerId], int],
    limit: int,
    cost: Cost,
) -> None:
    swaps = 0
    improved = True
    while improved and swaps < limit:
        improved = False
        for i, j in combinations(range(len(tables)), 2):
            for x in range(len(tables[i])):
                for y in range(len(tables[j])):
                    if swaps >= limit:
                        return
                    a, b = tables[i], tables[j]
                    before = _table_cost(a, met, cost) + _table_cost(b, met, cost)
                    a[x], b[y] = b[y], a[x]
                    if _table_cost(a, met, cost) + _table_cost(b, met, cost) < before:
                        swaps += 1
                        improved = True
                    else:
                        a[x], b[y] = b[y], a[x]
