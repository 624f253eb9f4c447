import pytest

from tournaments.pairing.scoring import head_to_head, table_points
from tournaments.pairing.standings import crosstable, standings
from tournaments.pairing.types import Entrant, Played

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


def game(number, a, b, result):
    """A 2-seat match: ``result`` is what ``a`` scored."""
    ranking = {WIN: ((0,), (1,)), DRAW: ((0, 1),), LOSS: ((1,), (0,))}[result]
    return Played(number, (a, b), ranking)


# Eight players, three rounds, built so that every tie-break decides something.
EIGHT = [
    game(1, 1, 2, WIN),
    game(1, 3, 5, WIN),
    game(1, 4, 6, DRAW),
    game(1, 7, 8, DRAW),
    game(2, 1, 5, DRAW),
    game(2, 2, 3, WIN),
    game(2, 4, 7, LOSS),
    game(2, 6, 8, LOSS),
    game(3, 1, 6, LOSS),
    game(3, 2, 4, DRAW),
    game(3, 3, 7, DRAW),
    game(3, 5, 8, DRAW),
]


def test_table_points_share_the_players_finished_ahead_of():
    assert table_points(game(1, 1, 2, WIN)) == {1: 1.0, 2: 0.0}
    assert table_points(game(1, 1, 2, DRAW)) == {1: 0.5, 2: 0.5}
    four = Played(1, (1, 2, 3, 4), ((2,), (0,), (3,), (1,)))
    assert table_points(four) == pytest.approx({3: 1.0, 1: 2 / 3, 4: 1 / 3, 2: 0.0})
    # Seat 1 first; seats 0 and 2 level behind: (0 behind + 1 level / 2) / 2 others = 0.25.
    three = Played(1, (1, 2, 3), ((1,), (0, 2)))
    assert table_points(three) == {2: 1.0, 1: 0.25, 3: 0.25}
    assert head_to_head(three)[1, 3] == 0.5 and head_to_head(three)[2, 1] == 1.0


def test_tie_breaks_against_the_hand_computed_example():
    field = [Entrant(i, rating=10.0 * i) for i in range(1, 9)]
    rows = {s.player: s for s in standings(field, EIGHT, {})}
    # Scores: 1: 1 + .5 + 0 = 1.5; 2: 0 + 1 + .5 = 1.5; 3: 1 + 0 + .5 = 1.5; 4: .5 + 0 + .5 = 1;
    # 5: 0 + .5 + .5 = 1; 6: .5 + 0 + 1 = 1.5; 7: .5 + 1 + .5 = 2; 8: .5 + 1 + .5 = 2.
    assert [rows[p].score for p in range(1, 9)] == [1.5, 1.5, 1.5, 1, 1, 1.5, 2, 2]
    # Buchholz, the opponents' scores: 1: s2 + s5 + s6 = 1.5 + 1 + 1.5 = 4; 2: s1 + s3 + s4 = 4;
    # 3: s5 + s2 + s7 = 1 + 1.5 + 2 = 4.5; 6: s4 + s8 + s1 = 1 + 2 + 1.5 = 4.5;
    # 4: s6 + s7 + s2 = 5; 5: s3 + s1 + s8 = 5; 7: s8 + s4 + s3 = 4.5; 8: s7 + s6 + s5 = 4.5.
    assert [rows[p].buchholz for p in range(1, 9)] == [4, 4, 4.5, 5, 5, 4.5, 4.5, 4.5]
    # Sonneborn-Berger, points x opponent's score: 1: 1 x 1.5 + .5 x 1 + 0 x 1.5 = 2;
    # 2: 0 x 1.5 + 1 x 1.5 + .5 x 1 = 2; 3: 1 x 1 + 0 x 1.5 + .5 x 2 = 2;
    # 6: .5 x 1 + 0 x 2 + 1 x 1.5 = 2;
    # 4: .5 x 1.5 + 0 x 2 + .5 x 1.5 = 1.5; 5: 0 x 1.5 + .5 x 1.5 + .5 x 2 = 1.75;
    # 7: .5 x 2 + 1 x 1 + .5 x 1.5 = 2.75; 8: .5 x 2 + 1 x 1.5 + .5 x 1 = 3.
    assert [rows[p].sonneborn_berger for p in range(1, 9)] == [2, 2, 2, 1.5, 1.75, 2, 2.75, 3]
    # Level on score, Buchholz and Sonneborn-Berger: {1, 2}, who met (1 won), and {3, 6}, who
    # did not.
    assert (rows[1].direct, rows[2].direct, rows[3].direct, rows[6].direct) == (1, 0, 0, 0)
    # 8 over 7 by Sonneborn-Berger; 6 and 3 (Buchholz 4.5) over 1 and 2 (4); 6 over 3 by rating;
    # 1 over 2 by the direct encounter although 2 is rated higher; 5 over 4 by Sonneborn-Berger.
    assert [s.player for s in standings(field, EIGHT, {})] == [8, 7, 6, 3, 1, 2, 5, 4]
    assert [s.rank for s in standings(field, EIGHT, {})] == list(range(1, 9))
    assert all(rows[p].played == 3 and rows[p].byes == 0 for p in range(1, 9))


def test_byes_score_a_point_but_no_buchholz_and_the_withdrawn_are_marked():
    field = [Entrant(1, 5.0), Entrant(2, 9.0), Entrant(3, 1.0, active=False)]
    rows = standings(field, [game(1, 1, 2, WIN)], {3: 1})
    by_player = {s.player: s for s in rows}
    assert by_player[3].score == 1.0 and by_player[3].buchholz == 0 and by_player[3].byes == 1
    assert not by_player[3].active and by_player[1].active
    # 1 and 3 on one point: 1 has Buchholz 0 (2 scored nothing) like 3; 1 is rated higher.
    assert [s.player for s in rows] == [1, 3, 2]


def test_k_seat_tie_breaks_count_every_opponent_of_the_table():
    field = [Entrant(i, 0.0) for i in (1, 2, 3)]
    played = [Played(1, (1, 2, 3), ((0,), (1,), (2,)))]
    rows = {s.player: s for s in standings(field, played, {})}
    # Scores 1, 0.5, 0. Buchholz of 1: 0.5 + 0 = 0.5; of 3: 1 + 0.5 = 1.5.
    assert [rows[p].buchholz for p in (1, 2, 3)] == [0.5, 1.0, 1.5]
    # Sonneborn-Berger of 1: 1 x 0.5 + 1 x 0 = 0.5; of 2: 0 x 1 + 1 x 0 = 0.
    assert [rows[p].sonneborn_berger for p in (1, 2, 3)] == [0.5, 0.0, 0.0]


def test_crosstable_lists_each_meeting_in_round_order():
    field = [Entrant(i, 0.0) for i in (1, 2, 3)]
    # Given out of order: round 2 first.
    played = [game(2, 2, 1, WIN), game(1, 1, 2, DRAW)]
    table = crosstable(field, played)
    assert table == {1: {2: [0.5, 0.0]}, 2: {1: [0.5, 1.0]}, 3: {}}
