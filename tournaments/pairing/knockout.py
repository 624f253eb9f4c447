"""Single elimination, seeded by rating and re-seeded every round.

Two seats: the bracket is the next power of two; the top seeds have the byes, the rest meet
1 v n, 2 v n-1, ... (highest remaining rating against lowest). More seats: tables of sizes
differing by at most one (layout.table_sizes), seeds dealt to the tables in a snake (1, 2, ..., t,
t, ..., 2, 1, ...), and from each table the top half rounded down, at least one, goes through.
A 4-seat knockout of 16 thus has 4 tables, then 2, then 1 (two go through), then a final of 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tournaments.pairing.layout import table_sizes
from tournaments.pairing.types import Entrant, Played, PlayerId, Round, Table

RULES = ("replay", "rating")


def advance_count(table_size: int) -> int:
    """How many players of a table of this size go through."""
    return max(1, table_size // 2)


def knockout_round(alive: Sequence[Entrant], *, seats: int) -> Round:
    """One knockout round seeded by rating (1 v n, 2 v n-1, ...); byes go to the top seeds."""
    seeds = [e.id for e in sorted(alive, key=lambda e: (-e.rating, e.id))]
    if len(seeds) < 2:
        return Round((), tuple(seeds))
    if seats == 2:
        bracket = 1
        while bracket < len(seeds):
            bracket *= 2
        bye_count = bracket - len(seeds)
        rest = seeds[bye_count:]
        half = len(rest) // 2
        return Round(
            tuple(Table((rest[i], rest[-1 - i])) for i in range(half)), tuple(seeds[:bye_count])
        )
    sizes, bye_count = table_sizes(len(seeds), seats)
    byes, rest = seeds[:bye_count], seeds[bye_count:]
    tables: list[list[PlayerId]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    turn = 0
    for player in rest:
        while True:
            lap, pos = divmod(turn, len(sizes))
            index = order[pos] if lap % 2 == 0 else order[-1 - pos]
            turn += 1
            if len(tables[index]) < sizes[index]:
                tables[index].append(player)
                break
    return Round(tuple(Table(tuple(t)) for t in tables), tuple(byes))


def knockout_advancing(
    played: Played, *, seats: int, entrants: Mapping[PlayerId, Entrant], rule: str
) -> tuple[PlayerId, ...] | None:
    """Who goes through from one finished table, in finishing order.

    None when a tie across the cut needs a deciding match (rule ``replay``); with rule ``rating``
    the higher-rated of the tied players go through (then the lower id).
    """
    if rule not in RULES:
        raise ValueError(f"unknown rule for drawn knockout matches: {rule}")
    wanted = advance_count(len(played.players))
    through: list[PlayerId] = []
    for group in played.ranking:
        players = [played.players[seat] for seat in group]
        if len(through) + len(players) <= wanted:
            through += players
        else:
            if rule == "replay":
                return None
            players.sort(key=lambda p: (-entrants[p].rating, p))
            through += players[: wanted - len(through)]
        if len(through) == wanted:
            break
    return tuple(through)


def knockout_rounds_needed(players: int, seats: int) -> int:
    """How many rounds a knockout of ``players`` at tables of ``seats`` takes to one winner."""
    rounds = 0
    while players > 1:
        if seats == 2:
            bracket = 1
            while bracket < players:
                bracket *= 2
            players = bracket // 2
        else:
            sizes, byes = table_sizes(players, seats)
            players = byes + sum(advance_count(s) for s in sizes)
        rounds += 1
    return rounds
