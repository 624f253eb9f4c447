from collections import Counter
from itertools import combinations

import pytest
import rustworkx

from tests.tournaments.simulate import play_swiss
from tournaments.pairing.standings import scores
from tournaments.pairing.swiss import swiss_round
from tournaments.pairing.types import Entrant, Played


def entrants(n):
    return [Entrant(i, rating=float((i * 37) % 41)) for i in range(1, n + 1)]


def swiss(field, seats):
    def next_round(played, byes, number):
        return swiss_round(field, played, byes, seats=seats, round_number=number)

    return next_round


@pytest.mark.parametrize("players", [8, 9, 13])
def test_two_seat_swiss_repeats_no_pairing_while_the_field_allows(players):
    field = entrants(players)
    rounds, _, byes = play_swiss(players - 1 + players % 2, swiss(field, 2))
    ids = sorted(e.id for e in field)
    met = Counter()
    for number, r in enumerate(rounds, start=1):
        seated = [p for t in r.tables for p in t.players]
        assert sorted(seated + list(r.byes)) == ids
        assert len(r.byes) == players % 2
        for t in r.tables:
            met[frozenset(t.players)] += 1
        # The matching finds a round without repeats when the game so far leaves one: in these
        # fields the first half of the rounds always does.
        if number <= (players - 1) // 2:
            assert max(met.values()) == 1
    # Nobody has a second bye before everyone has had one.
    assert max(byes.values(), default=0) <= 1


@pytest.mark.parametrize("players", [8, 9, 13, 20])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_repeat_pairing_happens_only_when_no_round_without_one_exists(players, seed):
    field = entrants(players)
    rounds, _, _ = play_swiss(players - 1 + players % 2, swiss(field, 2), seed=seed)
    met: set[frozenset[int]] = set()
    for r in rounds:
        pairs = [frozenset(t.players) for t in r.tables]
        if any(pair in met for pair in pairs):
            # Some seeds paint the Swiss into a corner: then no perfect matching of the players
            # of that round over pairs not yet met exists.
            seated = sorted(p for t in r.tables for p in t.players)
            graph = rustworkx.PyGraph()
            graph.add_nodes_from(seated)
            index = {p: i for i, p in enumerate(seated)}
            graph.add_edges_from_no_data(
                [(index[a], index[b]) for a, b in combinations(seated, 2) if {a, b} not in met]
            )
            assert len(rustworkx.max_weight_matching(graph, max_cardinality=True)) < len(pairs)
        met.update(pairs)


def test_byes_go_to_the_lowest_ranked_without_a_bye():
    field = entrants(5)
    played = [Played(1, (1, 2), ((0,), (1,))), Played(1, (3, 4), ((0,), (1,)))]
    r = swiss_round(field, played, {5: 1}, seats=2, round_number=2)
    score = scores(field, played, {5: 1})
    assert score[2] == score[4] == 0
    # 2 and 4 lost and have no bye; 4 (rating 25) ranks below 2 (rating 33).
    assert r.byes == (4,)


def test_withdrawn_players_are_never_paired():
    field = [*entrants(6)[:5], Entrant(6, 10.0, active=False)]
    rounds, _, _ = play_swiss(4, swiss(field, 2))
    for r in rounds:
        assert 6 not in [p for t in r.tables for p in t.players] + list(r.byes)
        assert len(r.byes) == 1


@pytest.mark.parametrize(("players", "seats"), [(7, 3), (10, 4), (11, 4)])
def test_k_seat_byes_spread_and_the_withdrawn_sit_out(players, seats):
    field = [*entrants(players), Entrant(99, 50.0, active=False)]
    rounds, _, byes = play_swiss(
        6, lambda p, b, n: swiss_round(field, p, b, seats=seats, round_number=n, min_seats=seats)
    )
    given: dict[int, int] = {}
    for r in rounds:
        assert 99 not in [p for t in r.tables for p in t.players] + list(r.byes)
        assert all(len(t.players) == seats for t in r.tables)
        for p in r.byes:
            # Nobody has a second bye before everyone has had one.
            assert given.get(p, 0) <= min(given.get(e.id, 0) for e in field[:-1])
            given[p] = given.get(p, 0) + 1
    assert sum(byes.values()) == 6 * (players % seats)


def test_equal_scores_meet_first():
    field = entrants(8)
    played = [
        Played(1, (1, 2), ((0,), (1,))),
        Played(1, (3, 4), ((0,), (1,))),
        Played(1, (5, 6), ((0,), (1,))),
        Played(1, (7, 8), ((0,), (1,))),
    ]
    r = swiss_round(field, played, {}, seats=2, round_number=2)
    winners = {1, 3, 5, 7}
    for t in r.tables:
        assert (set(t.players) <= winners) or not (set(t.players) & winners)


def test_the_same_input_gives_the_same_round():
    field = entrants(13)
    _, played, byes = play_swiss(3, swiss(field, 2))
    one = swiss_round(field, played, byes, seats=2, round_number=4)
    two = swiss_round(list(reversed(field)), list(reversed(played)), byes, seats=2, round_number=4)
    assert one == two


def test_a_field_that_has_met_everyone_is_paired_again():
    field = entrants(4)
    played = [
        Played(n, pair, ((0,), (1,)))
        for n, pairs in enumerate([((1, 2), (3, 4)), ((1, 3), (2, 4)), ((1, 4), (2, 3))], 1)
        for pair in pairs
    ]
    r = swiss_round(field, played, {}, seats=2, round_number=4)
    assert sorted(p for t in r.tables for p in t.players) == [1, 2, 3, 4]


@pytest.mark.parametrize(("players", "seats"), [(8, 4), (9, 4), (13, 4), (13, 3), (11, 5)])
def test_k_seat_tables_differ_by_at_most_one_and_seat_everyone(players, seats):
    field = entrants(players)
    rounds, _, _ = play_swiss(4, swiss(field, seats))
    ids = sorted(e.id for e in field)
    for r in rounds:
        sizes = [len(t.players) for t in r.tables]
        assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 2 and max(sizes) <= seats
        assert sorted([p for t in r.tables for p in t.players] + list(r.byes)) == ids


@pytest.mark.parametrize(("players", "seats"), [(9, 3), (13, 3), (16, 4), (18, 4), (25, 5)])
def test_k_seat_second_round_repeats_nobody_when_the_field_allows(players, seats):
    # With at least seats x seats players, every table of round 2 can take one player from each
    # table of round 1.
    field = entrants(players)
    rounds, _, _ = play_swiss(2, swiss(field, seats))
    met = Counter()
    for r in rounds:
        for t in r.tables:
            for a, b in combinations(t.players, 2):
                met[frozenset((a, b))] += 1
    assert max(met.values()) == 1


def test_k_seat_byes_when_tables_below_the_game_minimum_would_be_needed():
    r = swiss_round(entrants(7), [], {}, seats=3, round_number=1, min_seats=3)
    assert [len(t.players) for t in r.tables] == [3, 3]
    # Round 1: everyone on 0, so the lowest-ranked is the lowest-rated.
    assert r.byes == (min(entrants(7), key=lambda e: (e.rating, -e.id)).id,)
