import math

import pytest

from tournaments.pairing.knockout import (
    knockout_advancing,
    knockout_round,
    knockout_rounds_needed,
)
from tournaments.pairing.types import Entrant, Played


def field(n):
    # Rating 100 - i: player 1 is the top seed.
    return [Entrant(i, 100.0 - i) for i in range(1, n + 1)]


def test_two_seat_round_one_meets_top_against_bottom_with_byes_to_the_top_seeds():
    r = knockout_round(field(6), seats=2)
    assert r.byes == (1, 2)
    assert [t.players for t in r.tables] == [(3, 6), (4, 5)]
    r = knockout_round(field(8), seats=2)
    assert r.byes == ()
    assert [t.players for t in r.tables] == [(1, 8), (2, 7), (3, 6), (4, 5)]


@pytest.mark.parametrize("players", [2, 3, 5, 8, 9, 13, 16])
def test_a_two_seat_bracket_plays_to_one_winner_in_the_rounds_needed(players):
    alive = field(players)
    by_id = {e.id: e for e in alive}
    rounds = 0
    while len(alive) > 1:
        r = knockout_round(alive, seats=2)
        rounds += 1
        # The higher seat (lower id) wins every match here.
        through = [*r.byes]
        for t in r.tables:
            played = Played(rounds, t.players, ((0,), (1,)))
            through += knockout_advancing(played, seats=2, entrants=by_id, rule="replay")
        # Byes fill the bracket to a power of two: the next round has half of it.
        assert len(through) == 2 ** math.ceil(math.log2(len(alive))) // 2
        alive = [by_id[p] for p in through]
    assert [e.id for e in alive] == [1]
    assert rounds == knockout_rounds_needed(players, 2) == math.ceil(math.log2(players))


@pytest.mark.parametrize(("players", "seats"), [(16, 4), (13, 4), (9, 3), (8, 4), (7, 5)])
def test_k_seat_knockouts_send_the_top_half_of_each_table_through(players, seats):
    alive = field(players)
    by_id = {e.id: e for e in alive}
    rounds = 0
    while len(alive) > 1:
        r = knockout_round(alive, seats=seats)
        rounds += 1
        sizes = [len(t.players) for t in r.tables]
        assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 2 and max(sizes) <= seats
        # The top seeds are dealt to different tables.
        assert sorted(t.players[0] for t in r.tables) == [e.id for e in alive[: len(r.tables)]]
        through = [*r.byes]
        for t in r.tables:
            played = Played(rounds, t.players, tuple((s,) for s in range(len(t.players))))
            won = knockout_advancing(played, seats=seats, entrants=by_id, rule="rating")
            assert won == t.players[: max(1, len(t.players) // 2)]
            through += won
        alive = sorted((by_id[p] for p in through), key=lambda e: -e.rating)
    assert [e.id for e in alive] == [1]
    assert rounds == knockout_rounds_needed(players, seats)


def test_a_draw_is_replayed_or_decided_by_rating():
    by_id = {e.id: e for e in field(4)}
    drawn = Played(1, (3, 2), ((0, 1),))
    assert knockout_advancing(drawn, seats=2, entrants=by_id, rule="replay") is None
    assert knockout_advancing(drawn, seats=2, entrants=by_id, rule="rating") == (2,)
    # At four seats two go through: a tie for first is no tie at the cut.
    four = Played(1, (4, 3, 2, 1), ((0, 1), (2,), (3,)))
    assert knockout_advancing(four, seats=4, entrants=by_id, rule="replay") == (4, 3)
    # A tie for second is: one place for two players.
    cut = Played(1, (4, 3, 2, 1), ((0,), (1, 2), (3,)))
    assert knockout_advancing(cut, seats=4, entrants=by_id, rule="replay") is None
    assert knockout_advancing(cut, seats=4, entrants=by_id, rule="rating") == (4, 2)
    with pytest.raises(ValueError):
        knockout_advancing(drawn, seats=2, entrants=by_id, rule="coin")
