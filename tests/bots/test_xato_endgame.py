"""The Xato expert's exact end-of-deal search over card counts."""

from __future__ import annotations

import pytest

from cardgames.bots.xato_endgame import Endgame, OutOfBudget

# (hand cards, life cards, out, sacrificed, calls made)


def test_a_sure_finishing_kill_is_found_and_wins() -> None:
    # Seat 0 to call; seat 1 holds one life card and nothing else, seats 2 and 3 are out.
    search = Endgame(me=0, players=4, starting_hand=10, direction=1, budget=1000)
    seats = (
        (2, 1, False, True, 5),
        (0, 1, False, True, 5),
        (0, 0, True, True, 5),
        (0, 0, True, False, 5),
    )
    options = search.call_options(seats, (40, 50, 10, 10))
    best = max(options, key=lambda o: o.value)
    assert (best.kind, best.seat) == ("seat", 1)
    assert best.value == pytest.approx(1.0 + 1e-4 * 10)  # 40 + 20 beats 50 by 10


def test_a_duel_it_cannot_win_is_valued_at_zero() -> None:
    # Seat 1 leads by 100 and only a few cards are left: nothing wins.
    search = Endgame(me=0, players=4, starting_hand=10, direction=1, budget=10000)
    seats = (
        (1, 1, False, True, 5),
        (1, 1, False, True, 5),
        (0, 0, True, True, 5),
        (0, 0, True, True, 5),
    )
    options = search.call_options(seats, (0, 100, 0, 0))
    assert max(o.value for o in options) < 0.01


def test_the_chances_follow_the_counts() -> None:
    # Seat 0 calls seat 1's card: 1 life among 2 cards. A kill (+20) wins, a hit (+5) leaves
    # seat 1 to finish seat 0 (one life, no hand) with +20: it loses.
    search = Endgame(me=0, players=4, starting_hand=10, direction=1, budget=1000)
    seats = (
        (0, 1, False, True, 5),
        (1, 1, False, True, 5),
        (0, 0, True, True, 5),
        (0, 0, True, True, 5),
    )
    options = search.call_options(seats, (30, 30, 0, 0))
    call = next(o for o in options if o.seat == 1)
    assert call.value == pytest.approx(0.5 * (1 + 1e-4 * 20) + 0.5 * (0 + 1e-4 * (-15)))


def test_the_work_is_bounded() -> None:
    search = Endgame(me=0, players=4, starting_hand=10, direction=1, budget=50)
    seats = tuple((8, 3, False, False, 2) for _ in range(4))
    with pytest.raises(OutOfBudget):
        search.call_options(seats, (10, 10, 10, 10))
    assert search.nodes == 51
