"""Swiss rounds: players of equal or close scores who have not met.

Two seats: a maximum-weight matching (rustworkx's ``max_weight_matching``, maximum
cardinality) on a graph that joins each active player to the ``NEAREST`` players nearest in the
score order whom they have not met, and to their ``FALLBACK`` nearest already met with a heavy
penalty, so a pairing always exists and a repeat is chosen only when unavoidable. An edge weighs
less the further apart the two scores are (squared) and, a little, the further apart their places;
the matching is deterministic for the same input. Whoever had seat 0 less often takes it.

An odd player out gets the bye: the lowest-placed active player among those with the fewest
byes. k seats: every table has exactly k players and the remainder (fewer than k) get byes the
same way. Tables are filled in score order by a greedy — each player, best first, joins the
open table among the next two whose players they have met least (then the fuller one, so
tables stay score bands) — then at most ``SWAPS`` swaps of two players between tables that
lower the repeat meetings without widening a table's score range by more than ``SPREAD``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations

import rustworkx

from tournaments.pairing.scoring import BYE_POINTS, table_points
from tournaments.pairing.types import Entrant, Played, PlayerId, Round, Table

NEAREST = 50
FALLBACK = 4
SWAPS = 500
SPREAD = 1.0
# Integer weights (the matching's weights are integers): scores are scaled to sixtieths, so
# halves, thirds, quarters and fifths of a point stay exact.
_SCALE = 60
_BASE = 10**12
_REPEAT = 10**10


def scores_of(
    entrants: Sequence[Entrant], played: Sequence[Played], byes: Mapping[PlayerId, int]
) -> dict[PlayerId, float]:
    score = {e.id: byes.get(e.id, 0) * BYE_POINTS for e in entrants}
    for table in played:
        for player, points in table_points(table).items():
            score[player] = score.get(player, 0.0) + points
    return score


def meetings_of(played: Sequence[Played]) -> Counter[frozenset[PlayerId]]:
    met: Counter[frozenset[PlayerId]] = Counter()
    for table in played:
        for pair in combinations(table.players, 2):
            met[frozenset(pair)] += 1
    return met


def swiss_round(
    entrants: Sequence[Entrant],
    played: Sequence[Played],
    byes: Mapping[PlayerId, int],
    *,
    seats: int,
    round_number: int,
) -> Round:
    """The next round's tables and byes (``round_number`` is 1-based; the pairing does not
    depend on it beyond what ``played`` says)."""
    score = scores_of(entrants, played, byes)
    met = meetings_of(played)
    # Best first: score, then rating, then id.
    order = sorted((e for e in entrants if e.active), key=lambda e: (-score[e.id], -e.rating, e.id))
    ids = [e.id for e in order]
    sitting = _byes(ids, len(ids) % seats, byes)
    playing = [p for p in ids if p not in sitting]
    if seats == 2:
        tables = _matched(playing, score, met, played)
    else:
        tables = _tables(playing, seats, score, met)
    return Round(tuple(Table(t) for t in tables), tuple(sitting))


def _byes(ids: list[PlayerId], count: int, byes: Mapping[PlayerId, int]) -> list[PlayerId]:
    if not count:
        return []
    # The lowest placed among those with the fewest byes.
    place = {p: i for i, p in enumerate(ids)}
    chosen = sorted(ids, key=lambda p: (byes.get(p, 0), -place[p]))[:count]
    return sorted(chosen, key=place.__getitem__)


def _matched(
    playing: list[PlayerId],
    score: Mapping[PlayerId, float],
    met: Counter[frozenset[PlayerId]],
    played: Sequence[Played],
) -> list[tuple[PlayerId, ...]]:
    graph: rustworkx.PyGraph = rustworkx.PyGraph()
    graph.add_nodes_from(playing)
    n = len(playing)
    scaled = [round(score[p] * _SCALE) for p in playing]
    for i in range(n):
        fresh = repeats = 0
        # Outwards from i's place: the nearest in the score order first.
        for distance in range(1, n):
            if fresh >= NEAREST and repeats >= FALLBACK:
                break
            for j in (i - distance, i + distance):
                if not 0 <= j < n or j < i:  # each edge once, from its lower end
                    continue
                again = met[frozenset((playing[i], playing[j]))]
                if (again and repeats >= FALLBACK) or (not again and fresh >= NEAREST):
                    continue
                gap = scaled[i] - scaled[j]
                weight = _BASE - gap * gap * 1000 - distance - again * _REPEAT
                graph.add_edge(i, j, weight)
                if again:
                    repeats += 1
                else:
                    fresh += 1
    matching = rustworkx.max_weight_matching(
        graph, max_cardinality=True, weight_fn=lambda weight: weight
    )
    pairs = sorted(tuple(sorted(edge)) for edge in matching)
    paired = {i for pair in pairs for i in pair}
    # Anyone the graph could not place (its edges ran out): paired in score order.
    rest = [i for i in range(n) if i not in paired]
    pairs += [(rest[k], rest[k + 1]) for k in range(0, len(rest) - 1, 2)]
    first = Counter(table.players[0] for table in played)
    out: list[tuple[PlayerId, ...]] = []
    for i, j in sorted(pairs):
        a, b = playing[i], playing[j]
        out.append((a, b) if (first[a], i) <= (first[b], j) else (b, a))
    return out


def _tables(
    playing: list[PlayerId],
    seats: int,
    score: Mapping[PlayerId, float],
    met: Counter[frozenset[PlayerId]],
) -> list[tuple[PlayerId, ...]]:
    count = len(playing) // seats
    tables: list[list[PlayerId]] = [[] for _ in range(count)]

    def repeats(player: PlayerId, table: list[PlayerId]) -> int:
        return sum(met[frozenset((player, other))] for other in table)

    for player in playing:
        open_ = [i for i, t in enumerate(tables) if len(t) < seats][:2]
        best = min(open_, key=lambda i: (repeats(player, tables[i]), -len(tables[i]), i))
        tables[best].append(player)
    _swap_pass(tables, score, met)
    return [tuple(t) for t in tables]


def _cost(table: list[PlayerId], met: Counter[frozenset[PlayerId]]) -> int:
    return sum(met[frozenset(pair)] for pair in combinations(table, 2))


def _range(table: list[PlayerId], score: Mapping[PlayerId, float]) -> float:
    values = [score[p] for p in table]
    return max(values) - min(values)


def _swap_pass(
    tables: list[list[PlayerId]],
    score: Mapping[PlayerId, float],
    met: Counter[frozenset[PlayerId]],
) -> None:
    swaps = 0
    for a in range(len(tables) - 1):
        b = a + 1  # neighbouring score bands only
        for i in range(len(tables[a])):
            for j in range(len(tables[b])):
                if swaps >= SWAPS:
                    return
                ta, tb = list(tables[a]), list(tables[b])
                ta[i], tb[j] = tb[j], ta[i]
                better = _cost(ta, met) + _cost(tb, met) < _cost(tables[a], met) + _cost(
                    tables[b], met
                )
                wide = max(_range(ta, score), _range(tb, score)) > max(
                    _range(tables[a], score), _range(tables[b], score), SPREAD
                )
                if better and not wide:
                    tables[a], tables[b] = ta, tb
                    swaps += 1
