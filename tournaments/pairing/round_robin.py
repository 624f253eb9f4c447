"""Round-robin schedules: everyone meets everyone.

Two seats: the circle (Berger) method, n-1 rounds for an even n, n rounds with one bye each for
an odd n; seats alternate so every player has seat 0 about half the time.

k seats: every table has exactly k players (a match of the game's size) and the remainder
(fewer than k) sit out with a bye, the players with the fewest byes first. Rounds are built
greedily until every pair has shared a table: each table is started by the player with the most
opponents still unmet and filled with the player who meets the most new opponents there (ties:
fewest meetings so far, then the lower id); then at most ``SWAPS`` swaps between tables that
cover more unmet pairs. Pairs meet as evenly as that allows; no schedule is longer than
``MAX_FACTOR`` times the lower bound (all pairs over the pairs one round's tables hold), plus 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from tournaments.pairing.types import PlayerId, Round, Table

SWAPS = 200
MAX_FACTOR = 3


def round_robin(players: Sequence[PlayerId], seats: int, *, double: bool = False) -> list[Round]:
    """The whole schedule; ``double``: played twice, the second time with seat orders reversed."""
    players = list(players)
    if len(players) < 2:
        return []
    if seats == 2 or len(players) <= seats:
        rounds = _circle(players) if seats == 2 else [Round((Table(tuple(players)),))]
    else:
        rounds = _greedy(players, seats)
    if double:
        rounds += [
            Round(tuple(Table(table.players[::-1]) for table in r.tables), r.byes) for r in rounds
        ]
    return rounds


def _circle(players: list[PlayerId]) -> list[Round]:
    ring: list[PlayerId | None] = [*players, None] if len(players) % 2 else list(players)
    n = len(ring)
    rounds = []
    for number in range(n - 1):
        tables, byes = [], []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                byes.append(a if b is None else b)
                continue
            # The fixed player alternates seats by round; the others by their board.
            first = (number % 2 == 0) if i == 0 else (i % 2 == 1)
            tables.append(Table((a, b) if first else (b, a)))
        rounds.append(Round(tuple(tables), tuple(p for p in byes if p is not None)))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _greedy(players: list[PlayerId], seats: int) -> list[Round]:
    met: dict[frozenset[PlayerId], int] = {frozenset(p): 0 for p in combinations(players, 2)}
    byes = dict.fromkeys(players, 0)
    per_round = (len(players) // seats) * seats * (seats - 1) // 2
    bound = -(-len(met) // per_round)
    rounds: list[Round] = []
    while any(count == 0 for count in met.values()) and len(rounds) < MAX_FACTOR * bound + 2:
        sitting = _byes_for(players, seats, byes, len(rounds))
        playing = [p for p in players if p not in sitting]
        tables = _swap_pass(_fill(playing, seats, met), met)
        for table in tables:
            for pair in combinations(table, 2):
                met[frozenset(pair)] += 1
        for p in sitting:
            byes[p] += 1
        rounds.append(Round(tuple(Table(tuple(t)) for t in tables), tuple(sitting)))
    return rounds


def _byes_for(
    players: list[PlayerId], seats: int, byes: dict[PlayerId, int], number: int
) -> list[PlayerId]:
    out = len(players) % seats
    # Fewest byes first; among equals, a rotating start so byes move through the field.
    order = sorted(
        range(len(players)), key=lambda i: (byes[players[i]], (i - number) % len(players))
    )
    return sorted((players[i] for i in order[:out]), key=players.index)


def _new(player: PlayerId, table: list[PlayerId], met: dict[frozenset[PlayerId], int]) -> int:
    return sum(1 for other in table if met[frozenset((player, other))] == 0)


def _fill(
    playing: list[PlayerId], seats: int, met: dict[frozenset[PlayerId], int]
) -> list[list[PlayerId]]:
    left = list(playing)

    def unmet(p: PlayerId) -> int:
        return sum(1 for q in playing if q != p and met[frozenset((p, q))] == 0)

    def meetings(p: PlayerId, table: list[PlayerId]) -> int:
        return sum(met[frozenset((p, q))] for q in table)

    tables = []
    while left:
        first = max(left, key=lambda p: (unmet(p), -p))
        table = [first]
        left.remove(first)
        while len(table) < seats:
            best = max(left, key=lambda p: (_new(p, table, met), -meetings(p, table), -p))
            table.append(best)
            left.remove(best)
        tables.append(table)
    return tables


def _cover(table: list[PlayerId], met: dict[frozenset[PlayerId], int]) -> int:
    return sum(1 for pair in combinations(table, 2) if met[frozenset(pair)] == 0)


def _swap_pass(
    tables: list[list[PlayerId]], met: dict[frozenset[PlayerId], int]
) -> list[list[PlayerId]]:
    swaps = 0
    improved = True
    while improved and swaps < SWAPS:
        improved = False
        for a, b in combinations(range(len(tables)), 2):
            for i in range(len(tables[a])):
                for j in range(len(tables[b])):
                    before = _cover(tables[a], met) + _cover(tables[b], met)
                    ta, tb = list(tables[a]), list(tables[b])
                    ta[i], tb[j] = tb[j], ta[i]
                    if _cover(ta, met) + _cover(tb, met) > before:
                        tables[a], tables[b] = ta, tb
                        swaps += 1
                        improved = True
                    if swaps >= SWAPS:
                        return tables
    return tables
