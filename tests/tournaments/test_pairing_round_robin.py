from collections import Counter
from itertools import combinations

import pytest

from tournaments.pairing.round_robin import REPEAT_BOUND, round_robin


def meetings(rounds):
    count = Counter()
    for r in rounds:
        for table in r.tables:
            for a, b in combinations(table.players, 2):
                count[frozenset((a, b))] += 1
    return count


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("players", range(3, 17))
def test_everyone_meets_everyone_as_evenly_as_documented(seats, players):
    ids = list(range(100, 100 + players))
    rounds = round_robin(ids, seats)
    count = meetings(rounds)
    values = [count[frozenset(pair)] for pair in combinations(ids, 2)]
    assert min(values) >= 1
    if seats == 2:
        assert set(values) == {1}
        assert len(rounds) == players - 1 + players % 2
    elif players == 10 and seats >= 5:
        assert max(values) - min(values) <= REPEAT_BOUND
    else:
        assert max(values) - min(values) <= 2
    byes = Counter()
    for r in rounds:
        seated = [p for t in r.tables for p in t.players]
        # Every player once per round: at a table or on a bye.
        assert sorted(seated + list(r.byes)) == ids
        sizes = [len(t.players) for t in r.tables]
        assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 2 and max(sizes) <= seats
        # Nobody has a second bye before everyone has had one.
        for p in r.byes:
            assert byes[p] <= min(byes[q] for q in ids)
            byes[p] += 1


def test_a_double_round_robin_plays_the_schedule_again_with_the_seats_reversed():
    single = round_robin([1, 2, 3, 4, 5], 2)
    double = round_robin([1, 2, 3, 4, 5], 2, double=True)
    assert double[: len(single)] == single
    for first, second in zip(single, double[len(single) :], strict=True):
        assert [t.players[::-1] for t in first.tables] == [t.players for t in second.tables]
        assert first.byes == second.byes
    assert set(meetings(double).values()) == {2}


def test_two_seat_players_alternate_the_first_seat():
    rounds = round_robin(list(range(8)), 2)
    first = Counter(t.players[0] for r in rounds for t in r.tables)
    assert max(first.values()) - min(first[p] for p in range(8)) <= 2


def test_tables_below_the_smallest_the_game_allows_become_byes():
    rounds = round_robin([1, 2, 3, 4], 3, min_seats=3)
    for r in rounds:
        assert [len(t.players) for t in r.tables] == [3]
        assert len(r.byes) == 1
    # Three tables of three cover the six pairs; three different players sit out.
    assert len(rounds) == 3
    assert len({p for r in rounds for p in r.byes}) == 3
