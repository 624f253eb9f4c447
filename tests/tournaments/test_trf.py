import pytest

from tournaments.pairing.export import TrfOverflow, trf_text
from tournaments.pairing.types import Entrant, Played


def test_the_tournament_report_file_has_fide_columns():
    entrants = [Entrant(7, 30.4), Entrant(8, 20.0), Entrant(9, 25.0, active=False)]
    played = [
        Played(1, (7, 8), ((0,), (1,))),
        Played(2, (9, 7), ((0, 1),)),
        Played(3, (8, 9), ((0,), (1,)), forfeited=(9,)),
    ]
    text = trf_text(
        name="Autumn Swiss",
        entrants=entrants,
        played=played,
        byes={1: [9], 2: [8]},
        names={7: "anna", 8: "bert", 9: "carla"},
        rounds=3,
    )
    lines = text.splitlines()
    assert lines[:4] == ["012 Autumn Swiss", "062 3", "092 Swiss", "XXR 3"]
    anna, carla, bert = lines[4:]
    # Starting numbers by rating: anna 1, carla 2, bert 3.
    assert anna[0:3] == "001" and anna[4:8] == "   1" and anna[14:47].rstrip() == "anna"
    assert anna[48:52] == "  30"
    # anna: 1 (win) + 0.5 (draw) = 1.5, first; bert: 0 + 1 (bye) + 1 (forfeit win) = 2 is first.
    assert anna[80:84] == " 1.5" and anna[85:89] == "   2"
    assert bert[80:84] == " 2.0" and bert[85:89] == "   1"
    # Round entries from column 92, ten columns each: opponent, colour, result.
    assert anna[91:99] == "   3 w 1"
    assert anna[101:109] == "   2 b ="
    assert anna[111:] == "0000 - Z"
    assert carla[91:] == "0000 - U     1 w =     3 b -"
    assert bert[91:] == "   1 b 0  0000 - U     2 w +"


def test_more_than_two_seats_has_no_report_file():
    with pytest.raises(ValueError):
        trf_text(
            name="x",
            entrants=[Entrant(i, 0.0) for i in (1, 2, 3)],
            played=[Played(1, (1, 2, 3), ((0,), (1,), (2,)))],
            byes={},
            names={},
            rounds=1,
        )


FORGED = "Open\n001    1      GM Forged Player                  2850" + " " * 30 + "9.0    1"


def test_a_name_can_forge_no_line_and_each_field_keeps_its_columns():
    """Rows that predate the check at creation: the name stays on its ``012`` line, a player's
    name in its 33 columns, a rating in its four."""
    text = trf_text(
        name=FORGED + "\r\t\u2028\u200b",
        entrants=[Entrant(7, 123456.0), Entrant(8, -40.0)],
        played=[Played(1, (7, 8), ((0,), (1,)))],
        byes={},
        names={7: "a" * 40, 8: "b\n001 forged"},
        rounds=1,
    )
    lines = text.splitlines()
    assert len(lines) == 6 and [line[:3] for line in lines[4:]] == ["001", "001"]
    assert lines[0].startswith("012 Open 001") and "\r" not in text and "\t" not in text
    first, second = lines[4:]
    assert first[14:47] == "a" * 33 and first[48:52] == "9999" and first[91:99] == "   2 w 1"
    assert second[14:47].rstrip() == "b 001 forged" and second[48:52] == "   0"
    assert second[91:99] == "   1 b 0"


def test_a_number_wider_than_its_columns_is_refused_not_shifted():
    with pytest.raises(TrfOverflow):
        trf_text(
            name="x",
            entrants=[Entrant(i, 0.0) for i in range(1, 10_001)],  # a five-digit start number
            played=[],
            byes={},
            names={},
            rounds=1,
        )
