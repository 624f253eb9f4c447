"""One pairing wave of a continuous event (an arena tournament, a bot ladder).

The players waiting now are seated at once; whoever cannot be seated waits for the next wave.
Modelled on the arena pairing of the largest chess server: players are ranked by the event's
standings and paired with near-ranked players, a recent opponent only when otherwise someone
would wait.

Two seats: a maximum-weight, maximum-cardinality matching (rustworkx.max_weight_matching) on a
sparse graph where each player is joined to their ``CANDIDATES`` nearest-ranked waiting players
within blocks of ``BLOCK`` consecutive ranks: the matching's time grows much faster than the
players (a complete graph of 1,000 takes over a second, even a path of 10,000 five), the blocks
keep a wave linear in them.
An edge costs the rank gap x ``RANK_STEP`` plus the rating gap, plus ``RECENT`` per recent
meeting, so maximum cardinality pairs a recent pair only when that seats one more pair. Pairs
kept ``apart`` get no edge at all. Players the blocks leave unmatched (the odd one out of a block,
one kept apart from all near it) get one more pass among themselves. The player who has sat in
seat 0 less often takes it; level, the higher-ranked.

More seats: tables of ``seats`` are filled in ranking order, each player placed at the open table
(of the first ``LOOKAHEAD``) with the fewest recent meetings, never beside someone kept apart;
the players left over make one smaller table when there are at least ``min_seats`` of them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice

import rustworkx

from tournaments.pairing.types import PlayerId, Table

CANDIDATES = 12
BLOCK = 250
LOOKAHEAD = 3
RANK_STEP = 1000
RECENT = 10**9
_BASE = 10**12


@dataclass(frozen=True)
class Waiting:
    """One player waiting for a pairing."""

    id: PlayerId
    rank: int  # place in the event's standings now, 0 first
    rating: float  # in shown rating units


@dataclass(frozen=True)
class Wave:
    tables: tuple[Table, ...]  # players in seat order
    waiting: tuple[PlayerId, ...]  # not seated in this wave, in ranking order


_Weight = Callable[[Waiting, Waiting], int]
_Allowed = Callable[[Waiting, Waiting], bool]


def pair_key(a: PlayerId, b: PlayerId) -> tuple[PlayerId, PlayerId]:
    """The key of a pair in ``recent`` and ``apart``: the same whichever comes first."""
    return (a, b) if a <= b else (b, a)


def pair_wave(
    waiting: Sequence[Waiting],
    *,
    seats: int,
    min_seats: int | None = None,
    recent: Mapping[tuple[PlayerId, PlayerId], int] | None = None,
    apart: Collection[tuple[PlayerId, PlayerId]] = (),
    first_seat: Mapping[PlayerId, int] | None = None,
) -> Wave:
    """Seat the ``waiting`` players at tables of ``seats``; the same input, the same wave.

    ``recent``: meetings per pair (``pair_key``) within the event's memory; ``apart``: pairs that
    must never share a table; ``first_seat``: times each player sat in seat 0.
    """
    if seats < 2:
        raise ValueError("a table has at least two seats")
    ranked = sorted(waiting, key=lambda w: (w.rank, -w.rating, w.id))
    recent = recent or {}
    kept_apart = {pair_key(a, b) for a, b in apart}
    if seats == 2:
        tables = _pairs(ranked, recent, kept_apart, first_seat or {})
    else:
        tables = _tables(ranked, seats, min_seats or seats, recent, kept_apart)
    seated = {p for table in tables for p in table}
    return Wave(
        tables=tuple(Table(tuple(t)) for t in tables),
        waiting=tuple(w.id for w in ranked if w.id not in seated),
    )


def _pairs(
    ranked: list[Waiting],
    recent: Mapping[tuple[PlayerId, PlayerId], int],
    apart: set[tuple[PlayerId, PlayerId]],
    first_seat: Mapping[PlayerId, int],
) -> list[list[PlayerId]]:
    def weight(a: Waiting, b: Waiting) -> int:
        key = pair_key(a.id, b.id)
        return (
            _BASE
            - abs(a.rank - b.rank) * RANK_STEP
            - round(abs(a.rating - b.rating))
            - recent.get(key, 0) * RECENT
        )

    def allowed(a: Waiting, b: Waiting) -> bool:
        return pair_key(a.id, b.id) not in apart

    found = _in_blocks(ranked, weight, allowed)
    matched = {i for pair in found for i in pair}
    rest = [i for i in range(len(ranked)) if i not in matched]
    if len(rest) > 1:  # the blocks' leftovers, nearest to each other among themselves
        again = _in_blocks([ranked[i] for i in rest], weight, allowed)
        found += [(rest[i], rest[j]) for i, j in again]
    tables = []
    for i, j in sorted(found):
        a, b = ranked[i].id, ranked[j].id  # i < j: a is the higher-ranked
        tables.append([b, a] if first_seat.get(b, 0) < first_seat.get(a, 0) else [a, b])
    return tables


def _in_blocks(ranked: list[Waiting], weight: _Weight, allowed: _Allowed) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    for start in range(0, len(ranked), BLOCK):
        block = ranked[start : start + BLOCK]
        found += [(start + i, start + j) for i, j in _matching(block, weight, allowed)]
    return found


def _matching(
    ranked: list[Waiting],
    weight: _Weight,
    allowed: _Allowed,
) -> list[tuple[int, int]]:
    graph: rustworkx.PyGraph = rustworkx.PyGraph()
    graph.add_nodes_from(range(len(ranked)))
    edges: dict[tuple[int, int], int] = {}
    for i, a in enumerate(ranked):
        near = (j for j in _nearest(i, len(ranked)) if allowed(a, ranked[j]))
        for j in islice(near, CANDIDATES):
            key = (min(i, j), max(i, j))
            if key not in edges:
                edges[key] = weight(ranked[key[0]], ranked[key[1]])
    graph.add_edges_from([(i, j, w) for (i, j), w in sorted(edges.items())])
    found = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return sorted((min(i, j), max(i, j)) for i, j in found)


def _nearest(i: int, n: int) -> Iterator[int]:
    """Indices by distance from ``i`` in the ranking, the higher-ranked first on a tie."""
    for d in range(1, n):
        for j in (i - d, i + d):
            if 0 <= j < n:
                yield j


def _tables(
    ranked: list[Waiting],
    seats: int,
    min_seats: int,
    recent: Mapping[tuple[PlayerId, PlayerId], int],
    apart: set[tuple[PlayerId, PlayerId]],
) -> list[list[PlayerId]]:
    full, rest = divmod(len(ranked), seats)
    sizes = [seats] * full + ([rest] if rest >= min_seats else [])
    tables: list[list[PlayerId]] = [[] for _ in sizes]
    first_open = 0  # tables fill in order: those before it are full
    for player in (w.id for w in ranked):
        while first_open < len(tables) and len(tables[first_open]) == sizes[first_open]:
            first_open += 1
        fits = [
            i
            for i in range(first_open, min(first_open + LOOKAHEAD * 4, len(tables)))
            if len(tables[i]) < sizes[i]
            and all(pair_key(player, q) not in apart for q in tables[i])
        ][:LOOKAHEAD]
        if fits:
            best = min(
                fits, key=lambda i: (sum(recent.get(pair_key(player, q), 0) for q in tables[i]), i)
            )
            tables[best].append(player)
    # A table that could not be filled (someone kept apart from everyone) seats nobody.
    return [t for t in tables if len(t) >= min_seats]
