"""The pairing waves of continuous events (arenas, ladders): tournaments/pairing/waves.py."""

import random
from collections import Counter

import pytest

from tournaments.pairing.waves import BLOCK, Waiting, pair_key, pair_wave


def field(n, seed=7):
    rng = random.Random(seed)
    return [Waiting(id=100 + i, rank=i, rating=1500 + rng.randint(-300, 300)) for i in range(n)]


def seated(wave):
    return [p for t in wave.tables for p in t.players]


def test_two_seats_pair_neighbours_in_the_ranking_and_seat_everyone_when_even():
    wave = pair_wave(field(8), seats=2)
    assert [t.players for t in wave.tables] == [(100, 101), (102, 103), (104, 105), (106, 107)]
    assert wave.waiting == ()


def test_the_odd_one_out_waits_and_is_named():
    wave = pair_wave(field(7), seats=2)
    assert len(wave.tables) == 3
    assert len(wave.waiting) == 1
    assert sorted([*seated(wave), *wave.waiting]) == list(range(100, 107))


def test_a_recent_pair_meets_again_only_when_otherwise_someone_waits():
    four = field(4)
    wave = pair_wave(four, seats=2, recent={pair_key(100, 101): 1})
    assert {tuple(sorted(t.players)) for t in wave.tables}.isdisjoint({(100, 101)})
    assert len(wave.tables) == 2
    # Alone, the two meet again rather than wait.
    alone = pair_wave(four[:2], seats=2, recent={pair_key(100, 101): 3})
    assert [sorted(t.players) for t in alone.tables] == [[100, 101]]


def test_a_pair_kept_apart_never_meets_even_alone():
    two = field(2)
    wave = pair_wave(two, seats=2, apart=[(101, 100)])
    assert wave.tables == ()
    assert wave.waiting == (100, 101)
    three = pair_wave(field(3), seats=2, apart=[(100, 101)])
    assert all(sorted(t.players) != [100, 101] for t in three.tables)
    assert len(three.tables) == 1


def test_who_sat_first_less_often_takes_seat_zero():
    two = field(2)
    assert pair_wave(two, seats=2).tables[0].players == (100, 101)
    assert pair_wave(two, seats=2, first_seat={100: 2, 101: 1}).tables[0].players == (101, 100)


def test_the_same_waiting_players_give_the_same_wave_in_any_order():
    players = field(40)
    shuffled = players[:]
    random.Random(3).shuffle(shuffled)
    recent = {pair_key(100 + i, 101 + i): 1 for i in range(0, 39, 2)}
    assert pair_wave(players, seats=2, recent=recent) == pair_wave(shuffled, seats=2, recent=recent)
    assert pair_wave(players, seats=3, recent=recent) == pair_wave(shuffled, seats=3, recent=recent)


def test_across_blocks_everyone_is_seated_once_and_near_their_rank():
    n = BLOCK * 2 + 51  # three blocks, the last odd
    players = field(n)
    apart = [pair_key(100 + i, 101 + i) for i in range(0, n - 1, 5)]
    wave = pair_wave(players, seats=2, apart=apart)
    counts = Counter(seated(wave))
    assert set(counts.values()) == {1}
    assert len(wave.waiting) == n % 2
    rank = {w.id: w.rank for w in players}
    assert max(abs(rank[t.players[0]] - rank[t.players[1]]) for t in wave.tables) <= 3
    assert not {pair_key(*t.players) for t in wave.tables} & set(apart)


def test_more_seats_fill_tables_in_ranking_order_with_one_smaller_table_allowed():
    ten = field(10)
    wave = pair_wave(ten, seats=4, min_seats=2)
    assert [len(t.players) for t in wave.tables] == [4, 4, 2]
    assert seated(wave)[:4] == [100, 101, 102, 103]
    strict = pair_wave(ten, seats=4)
    assert [len(t.players) for t in strict.tables] == [4, 4]
    assert strict.waiting == (108, 109)


def test_more_seats_avoid_recent_meetings_and_never_seat_a_pair_kept_apart():
    eight = field(8)
    wave = pair_wave(eight, seats=4, recent={pair_key(100, 101): 1}, apart=[(102, 103)])
    for table in wave.tables:
        players = set(table.players)
        assert not {100, 101} <= players
        assert not {102, 103} <= players
    assert sorted(seated(wave)) == list(range(100, 108))


def test_a_table_needs_two_seats():
    with pytest.raises(ValueError):
        pair_wave(field(4), seats=1)
