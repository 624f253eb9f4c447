"""One Swiss round: players of equal or close scores who have not met.

Players are ranked by score (standings.scores), then rating, then id. Byes (one for an odd count
at 2 seats; as layout.table_sizes needs at more seats) go to the lowest-ranked active players with
the fewest byes so far, so nobody has a second bye before everyone has had one.

Two seats: a maximum-weight, maximum-cardinality matching (rustworkx.max_weight_matching) on a
graph where each player is joined to their ``CANDIDATES`` nearest-ranked opponents not yet met;
a player who has met all of those is joined to the nearest ones anyway, with a repeat's penalty.
Edge weights favour equal scores (the squared difference in half points), then close ratings (a
minor term, capped below one score step); a repeat costs more than any score difference. Players
the sparse graph leaves unmatched are matched again on the complete graph among themselves. The
player who has sat in seat 0 less often takes seat 0; level, the higher-ranked one.

More seats: tables are filled by score. Players are taken in ranking order and each is placed at
the open table (of the first ``LOOKAHEAD`` open ones) where they have met the fewest players,
the earliest on a tie. Then at most ``SWAPS_PER_TABLE`` x tables improving swaps between tables at
most two apart, where a table costs ``REPEAT`` per repeated meeting plus the squared score
differences of its players. Table sizes differ by at most one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations, islice

import rustworkx

from tournaments.pairing.layout import table_sizes
from tournaments.pairing.standings import scores
from tournaments.pairing.types import Entrant, Played, PlayerId, Round, Table

CANDIDATES = 50
LOOKAHEAD = 3
SWAPS_PER_TABLE = 4
REPEAT = 10**12
_BASE = 10**14
_SCORE_STEP = 10**6
_RATING_CAP = 100


def swiss_round(
    entrants: Sequence[Entrant],
    played: Sequence[Played],
    byes: Mapping[PlayerId, int],
    *,
    seats: int,
    round_number: int,
    min_seats: int = 2,
) -> Round:
    """The pairing of round ``round_number`` from the finished matches and byes so far.

    Only active entrants are paired; the same input always gives the same round (the history
    decides it: ``round_number`` is only the contract's). ``min_seats``: the smallest table the
    game allows.
    """
    score = scores(entrants, played, byes)
    active = sorted(
        (e for e in entrants if e.active), key=lambda e: (-score[e.id], -e.rating, e.id)
    )
    rank = {e.id: i for i, e in enumerate(active)}
    rating = {e.id: e.rating for e in active}
    sizes, bye_total = table_sizes(len(active), seats, min_seats)
    by_need = sorted(active, key=lambda e: (byes.get(e.id, 0), -rank[e.id]))
    bye_players = {e.id for e in by_need[:bye_total]}
    playing = [e.id for e in active if e.id not in bye_players]
    met: dict[tuple[PlayerId, PlayerId], int] = defaultdict(int)
    first_seat: dict[PlayerId, int] = defaultdict(int)
    for match in played:
        for a, b in combinations(match.players, 2):
            met[a, b] += 1
            met[b, a] += 1
        first_seat[match.players[0]] += 1
    if seats == 2:
        pairs = _match_pairs(playing, score, rating, met)
        tables = [_seat_pair(a, b, rank, first_seat) for a, b in pairs]
    else:
        tables = _fill_tables(playing, sizes, score, met)
    tables.sort(key=lambda t: min(rank[p] for p in t))
    ordered_byes = tuple(sorted(bye_players, key=lambda p: rank[p]))
    return Round(tuple(Table(tuple(t)) for t in tables), ordered_byes)


def _weight(
    a: PlayerId,
    b: PlayerId,
    score: Mapping[PlayerId, float],
    rating: Mapping[PlayerId, float],
    met: Mapping[tuple[PlayerId, PlayerId], int],
) -> int:
    steps = round(abs(score[a] - score[b]) * 2 * 6)  # sixths of a half point: 2- to 4-seat scores
    return (
        _BASE
        - met.get((a, b), 0) * REPEAT
        - steps * steps * _SCORE_STEP // 36
        - min(round(abs(rating[a] - rating[b])), _RATING_CAP)
    )


def _match_pairs(
    playing: list[PlayerId],
    score: Mapping[PlayerId, float],
    rating: Mapping[PlayerId, float],
    met: Mapping[tuple[PlayerId, PlayerId], int],
) -> list[tuple[PlayerId, PlayerId]]:
    edges: dict[tuple[int, int], int] = {}
    for i, a in enumerate(playing):
        chosen = []
        for j in _nearest(i, len(playing)):
            if met.get((a, playing[j]), 0) == 0:
                chosen.append(j)
                if len(chosen) == CANDIDATES:
                    break
        if not chosen:
            chosen = list(islice(_nearest(i, len(playing)), CANDIDATES))
        for j in chosen:
            key = (min(i, j), max(i, j))
            if key not in edges:
                edges[key] = _weight(a, playing[j], score, rating, met)
    pairs = _matching(len(playing), edges)
    matched = {i for pair in pairs for i in pair}
    rest = [i for i in range(len(playing)) if i not in matched]
    if rest:
        extra = {
            (x, y): _weight(playing[rest[x]], playing[rest[y]], score, rating, met)
            for x, y in combinations(range(len(rest)), 2)
        }
        pairs += [(rest[x], rest[y]) for x, y in _matching(len(rest), extra)]
    return sorted((playing[min(i, j)], playing[max(i, j)]) for i, j in pairs)


def _nearest(i: int, n: int) -> Iterator[int]:
    """Indices by distance from ``i`` in the ranking, the higher-ranked first on a tie."""
    for d in range(1, n):
        for j in (i - d, i + d):
            if 0 <= j < n:
                yield j


def _matching(n: int, edges: Mapping[tuple[int, int], int]) -> list[tuple[int, int]]:
    graph: rustworkx.PyGraph = rustworkx.PyGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from([(i, j, w) for (i, j), w in sorted(edges.items())])
    found = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return sorted((min(i, j), max(i, j)) for i, j in found)


def _seat_pair(
    a: PlayerId, b: PlayerId, rank: Mapping[PlayerId, int], first_seat: Mapping[PlayerId, int]
) -> list[PlayerId]:
    order = sorted((a, b), key=lambda p: (first_seat.get(p, 0), rank[p]))
    return list(order)


def _fill_tables(
    playing: list[PlayerId],
    sizes: list[int],
    score: Mapping[PlayerId, float],
    met: Mapping[tuple[PlayerId, PlayerId], int],
) -> list[list[PlayerId]]:
    tables: list[list[PlayerId]] = [[] for _ in sizes]
    for player in playing:
        open_tables = [i for i, t in enumerate(tables) if len(t) < sizes[i]][:LOOKAHEAD]
        best = min(open_tables, key=lambda i: (sum(met.get((player, q), 0) for q in tables[i]), i))
        tables[best].append(player)

    def cost(table: list[PlayerId]) -> float:
        return sum(
            met.get((a, b), 0) * REPEAT + ((score[a] - score[b]) * 2) ** 2
            for a, b in combinations(table, 2)
        )

    limit = SWAPS_PER_TABLE * len(tables)
    swaps = 0
    improved = True
    while improved and swaps < limit:
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, min(i + 3, len(tables))):
                a, b = tables[i], tables[j]
                for x in range(len(a)):
                    for y in range(len(b)):
                        if swaps >= limit:
                            return tables
                        before = cost(a) + cost(b)
                        a[x], b[y] = b[y], a[x]
                        if cost(a) + cost(b) < before - 1e-9:
                            swaps += 1
                            improved = True
                        else:
                            a[x], b[y] = b[y], a[x]
    return tables
