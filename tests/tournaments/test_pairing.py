"""The pairing library on its own: schedules, Swiss rounds and brackets keep their invariants
for every table size, and the tie-breaks match sums worked by hand."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from tournaments.pairing.knockout import (
    knockout_advancing,
    knockout_round,
    knockout_rounds_needed,
)
from tournaments.pairing.round_robin import round_robin
from tournaments.pairing.scoring import table_points
from tournaments.pairing.standings import crosstable, standings
from tournaments.pairing.swiss import swiss_round
from tournaments.pairing.types import Entrant, Played, Round


def _everyone_once(round_: Round, players: list[int]) -> None:
    seen = [p for table in round_.tables for p in table.players] + list(round_.byes)
    assert sorted(seen) == sorted(players)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_a_round_robin_seats_every_pair_together_with_full_tables(seats: int) -> None:
    for n in range(max(3, seats), 17):
        players = list(range(1, n + 1))
        rounds = round_robin(players, seats)
        met: Counter[frozenset[int]] = Counter()
        byes: Counter[int] = Counter()
        for round_ in rounds:
            _everyone_once(round_, players)
            assert all(len(t.players) == min(seats, n) for t in round_.tables)
            byes.update(round_.byes)
            for table in round_.tables:
                met.update(frozenset(pair) for pair in combinations(table.players, 2))
        assert set(met) == {frozenset(pair) for pair in combinations(players, 2)}, (n, seats)
        if seats == 2:
            assert set(met.values()) == {1}
            assert len(rounds) == n - 1 + n % 2
        # Byes spread: nobody has two more than anyone else.
        counts = [byes[p] for p in players]
        assert max(counts) - min(counts) <= 1, (n, seats, counts)


def test_a_double_round_robin_plays_each_pairing_again_with_seats_reversed() -> None:
    single = round_robin([1, 2, 3, 4], 2)
    double = round_robin([1, 2, 3, 4], 2, double=True)
    assert double[: len(single)] == single
    assert [t.players for r in double[len(single) :] for t in r.tables] == [
        t.players[::-1] for r in single for t in r.tables
    ]
    # Seat 0 alternates: over the single cycle nobody has it more than once more than seat 1.
    first = Counter(t.players[0] for r in single for t in r.tables)
    assert max(first.values()) - min(first.values()) <= 1


def _play(round_: Round, number: int, rng: random.Random) -> list[Played]:
    out = []
    for table in round_.tables:
        seats = list(range(len(table.players)))
        rng.shuffle(seats)
        out.append(Played(number, table.players, tuple((s,) for s in seats)))
    return out


@pytest.mark.parametrize(("players", "seats", "rounds"), [(8, 2, 7), (9, 2, 8), (13, 2, 6)])
def test_swiss_never_repeats_a_pairing_while_one_is_avoidable(
    players: int, seats: int, rounds: int
) -> None:
    rng = random.Random(players)
    entrants = [Entrant(i, rng.random() * 40) for i in range(1, players + 1)]
    played: list[Played] = []
    byes: Counter[int] = Counter()
    for number in range(1, rounds + 1):
        round_ = swiss_round(entrants, played, byes, seats=seats, round_number=number)
        _everyone_once(round_, [e.id for e in entrants])
        assert len(round_.byes) == players % 2
        byes.update(round_.byes)
        played += _play(round_, number, rng)
        met = Counter(frozenset(p.players) for p in played)
        assert max(met.values()) == 1, f"a repeat in round {number}"
    # An odd field: byes go round before anyone has a second.
    assert max(byes.values(), default=0) <= 1


def test_swiss_pairs_equal_scores_first_and_gives_the_bye_to_the_lowest_placed() -> None:
    entrants = [Entrant(i, 10.0 * i) for i in range(1, 6)]
    # Round 1: 5 beat 4, 3 beat 2; 1 had the bye. Scores: 5, 3, 1 on 1; 4, 2 on 0.
    played = [Played(1, (5, 4), ((0,), (1,))), Played(1, (3, 2), ((0,), (1,)))]
    round_ = swiss_round(entrants, played, {1: 1}, seats=2, round_number=2)
    # The bye: the lowest placed without one (2, on 0 and the lower rating).
    assert round_.byes == (2,)
    pairs = {frozenset(t.players) for t in round_.tables}
    # 5 and 3 (both on 1, not met); 1 (on 1) meets 4 (the only one left).
    assert pairs == {frozenset((5, 3)), frozenset((1, 4))}


def test_a_withdrawn_player_is_never_paired() -> None:
    entrants = [Entrant(i, 0.0, active=i != 3) for i in range(1, 6)]
    round_ = swiss_round(entrants, [], {}, seats=2, round_number=1)
    assert 3 not in [p for t in round_.tables for p in t.players] + list(round_.byes)
    _everyone_once(round_, [1, 2, 4, 5])


def test_swiss_tables_of_four_fill_by_score_and_avoid_repeats() -> None:
    rng = random.Random(4)
    entrants = [Entrant(i, rng.random()) for i in range(1, 14)]
    played: list[Played] = []
    byes: Counter[int] = Counter()
    for number in range(1, 4):
        round_ = swiss_round(entrants, played, byes, seats=4, round_number=number)
        _everyone_once(round_, list(range(1, 14)))
        assert [len(t.players) for t in round_.tables] == [4, 4, 4]
        assert len(round_.byes) == 1
        byes.update(round_.byes)
        played += _play(round_, number, rng)
    assert max(byes.values()) == 1
    # Round 2 could avoid every repeat from round 1; the greedy and its swaps do.
    first, second = played[:3], played[3:6]
    met = {frozenset(pair) for p in first for pair in combinations(p.players, 2)}
    again = [pair for p in second for pair in combinations(p.players, 2) if frozenset(pair) in met]
    assert len(again) <= 2


def _bracket(players: int, seats: int) -> tuple[int, int]:
    """Plays a knockout where the higher rating always wins; returns (rounds, winner)."""
    entrants = {i: Entrant(i, float(i)) for i in range(1, players + 1)}
    alive = list(entrants.values())
    rounds = 0
    while len(alive) > 1:
        rounds += 1
        round_ = knockout_round(alive, seats=seats)
        _everyone_once(round_, [e.id for e in alive])
        through = list(round_.byes)
        for table in round_.tables:
            best = sorted(range(len(table.players)), key=lambda s: -table.players[s])
            played = Played(rounds, table.players, tuple((s,) for s in best))
            won = knockout_advancing(played, seats=seats, entrants=entrants, rule="replay")
            assert won is not None
            through += won
        assert len(through) < len(alive)
        alive = [entrants[p] for p in through]
    return rounds, alive[0].id


@pytest.mark.parametrize(("players", "seats"), [(8, 2), (9, 2), (13, 2), (13, 4), (9, 4), (8, 3)])
def test_a_knockout_bracket_ends_with_one_winner_in_the_rounds_it_announced(
    players: int, seats: int
) -> None:
    rounds, winner = _bracket(players, seats)
    assert winner == players  # the top seed, who always wins
    assert rounds == knockout_rounds_needed(players, seats)


def test_a_two_seat_knockout_gives_the_top_seeds_byes_and_pairs_one_against_the_last() -> None:
    round_ = knockout_round([Entrant(i, float(i)) for i in range(1, 7)], seats=2)
    assert round_.byes == (6, 5)
    assert [t.players for t in round_.tables] == [(4, 1), (3, 2)]


def test_a_drawn_knockout_table_replays_or_goes_by_rating() -> None:
    entrants = {1: Entrant(1, 5.0), 2: Entrant(2, 9.0)}
    drawn = Played(1, (1, 2), ((0, 1),))
    assert knockout_advancing(drawn, seats=2, entrants=entrants, rule="replay") is None
    assert knockout_advancing(drawn, seats=2, entrants=entrants, rule="rating") == (2,)
    # Four seats send two through: a tie for second cuts by rating.
    four = {i: Entrant(i, float(i)) for i in range(1, 5)}
    table = Played(1, (1, 2, 3, 4), ((0,), (1, 3), (2,)))
    assert knockout_advancing(table, seats=4, entrants=four, rule="rating") == (1, 4)
    assert knockout_advancing(table, seats=4, entrants=four, rule="replay") is None


def test_table_points_share_the_players_beaten() -> None:
    # Seat 2 first; seats 0 and 1 level; seat 3 last.
    played = Played(1, (10, 11, 12, 13), ((2,), (0, 1), (3,)))
    # 12 beat all three: 3/3. 10 beat 13, drew 11, lost to 12: (1 + 0.5) / 3.
    assert table_points(played) == {12: 1.0, 10: 0.5, 11: 0.5, 13: 0.0}
    assert table_points(Played(1, (1, 2), ((1,), (0,)))) == {2: 1.0, 1: 0.0}


def test_the_tie_breaks_match_the_hand_computed_example() -> None:
    entrants = [Entrant(1, 10.0), Entrant(2, 20.0), Entrant(3, 30.0), Entrant(4, 40.0)]
    win, draw = ((0,), (1,)), ((0, 1),)
    played = [
        Played(1, (1, 2), win),  # 1 beats 2
        Played(1, (3, 4), draw),
        Played(2, (1, 3), draw),
        Played(2, (2, 4), win),  # 2 beats 4
        Played(3, (4, 1), win),  # 4 beats 1
        Played(3, (2, 3), win),  # 2 beats 3
    ]
    rows = {row.player: row for row in standings(entrants, played, {})}
    # Scores: 1: 1 + .5 + 0 = 1.5; 2: 0 + 1 + 1 = 2; 3: .5 + .5 + 0 = 1; 4: .5 + 0 + 1 = 1.5.
    assert {p: r.score for p, r in rows.items()} == {1: 1.5, 2: 2.0, 3: 1.0, 4: 1.5}
    # Buchholz, the opponents' scores: 1 met 2, 3, 4: 2 + 1 + 1.5 = 4.5; 2 met 1, 4, 3:
    # 1.5 + 1.5 + 1 = 4; 3 met 4, 1, 2: 1.5 + 1.5 + 2 = 5; 4 met 3, 2, 1: 1 + 2 + 1.5 = 4.5.
    assert {p: r.buchholz for p, r in rows.items()} == {1: 4.5, 2: 4.0, 3: 5.0, 4: 4.5}
    # Sonneborn-Berger, points against each times their score: 1: 1 x 2 + .5 x 1 + 0 x 1.5 =
    # 2.5; 4: .5 x 1 + 0 x 2 + 1 x 1.5 = 2; 2: 0 x 1.5 + 1 x 1.5 + 1 x 1 = 2.5; 3: .5 x 1.5 +
    # .5 x 1.5 + 0 x 2 = 1.5.
    assert {p: r.sonneborn_berger for p, r in rows.items()} == {1: 2.5, 2: 2.5, 3: 1.5, 4: 2.0}
    # Direct encounter among those level on score: 1 and 4 (1.5 each): 4 beat 1.
    assert (rows[1].direct, rows[4].direct) == (0.0, 1.0)
    # 1 and 4 are level on score and Buchholz; Sonneborn-Berger puts 1 first.
    assert [r.player for r in standings(entrants, played, {})] == [2, 1, 4, 3]
    assert crosstable(entrants, played)[1] == {2: [1.0], 3: [0.5], 4: [0.0]}


def test_a_cycle_level_on_every_tie_break_goes_by_rating_and_counts_byes() -> None:
    entrants = [Entrant(1, 10.0), Entrant(2, 30.0), Entrant(3, 20.0)]
    win = ((0,), (1,))
    # 1 beats 2 (3 bye), 3 beats 1 (2 bye), 2 beats 3 (1 bye): everyone 2 points,
    # Buchholz 4, Sonneborn-Berger 2, direct 1.
    played = [Played(1, (1, 2), win), Played(2, (3, 1), win), Played(3, (2, 3), win)]
    rows = standings(entrants, played, {1: 1, 2: 1, 3: 1})
    assert {(r.score, r.buchholz, r.sonneborn_berger, r.direct, r.byes) for r in rows} == {
        (2.0, 4.0, 2.0, 1.0, 1)
    }
    assert [r.player for r in rows] == [2, 3, 1]
    assert [r.rank for r in rows] == [1, 2, 3]
