"""Hols der Geier: the worked examples G1-G14 of the rules, every option, views and validation."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import pytest

from cardgames.engines.hols_der_geier import BID_CARDS, ENGINE, POINT_CARDS
from cardgames.engines.protocol import IllegalMove, InvalidOptions, Resolution, State
from cardgames.engines.rng import DealRng

SEED = bytes(range(32))
MATCH_ID = "00000000-0000-0000-0000-000000000001"


def make_rng() -> DealRng:
    return DealRng(SEED, MATCH_ID, ["alice", None])


def start(
    players: int,
    first: tuple[int, ...] = (),
    last: tuple[int, ...] = (),
    removed_bids: list[int] | None = None,
    **options: Any,
) -> State:
    """A fresh game whose first deal turns up ``first`` first and ``last`` last.

    In the two-player variant the removed point cards are chosen among the others, and
    ``removed_bids`` (the same for every seat) replaces the drawn ones when given.
    """
    state = ENGINE.initial_state(players, options, make_rng())
    count = len(state["removed_points"])
    spare = [card for card in POINT_CARDS if card not in first + last]
    deck = [*first, *spare[count:], *last]
    state["removed_points"] = sorted(spare[:count])
    state["pot"] = deck[:1]
    state["stock"] = deck[1:]
    if removed_bids is not None:
        state["removed_bids"] = [sorted(removed_bids) for _ in range(players)]
        state["hands"] = [[c for c in BID_CARDS if c not in removed_bids] for _ in range(players)]
    return state


def play(state: State, *bids: int) -> Resolution:
    return ENGINE.apply(state, {seat: {"card": card} for seat, card in enumerate(bids)})


def play_all(state: State, turns: Sequence[tuple[int, ...]]) -> State:
    for bids in turns:
        state = play(state, *bids).state
    return state


def distinct_pairs(first: list[int], second: list[int]) -> list[tuple[int, ...]]:
    """Pair two card lists turn by turn so that the two bids always differ."""
    for shift in range(len(second)):
        rotated = second[shift:] + second[:shift]
        if all(a != b for a, b in zip(first, rotated, strict=True)):
            return list(zip(first, rotated, strict=True))
    raise AssertionError("no pairing")


def over_state(players: int, taken: list[list[int]], **options: Any) -> State:
    state = ENGINE.initial_state(players, options, make_rng())
    state["taken"] = taken
    state["over"] = True
    return state


# --- worked examples G1-G10 ---------------------------------------------------------------------

SINGLE_TURN_CASES = [
    # id, pot, bids, winner, mode
    ("G1", 6, (14, 9, 3, 11), 0, "mouse"),
    ("G2", -2, (5, 8, 12, 10), 0, "vulture"),
    ("G3", 7, (14, 14, 12, 4), 2, "mouse"),
    ("G6", -3, (2, 2, 9), 2, "vulture"),
    ("G7", 10, (15, 15, 13, 13, 1), 4, "mouse"),
    ("G8", 8, (15, 4, 4), 0, "mouse"),
]


@pytest.mark.parametrize(("example", "pot", "bids", "winner", "mode"), SINGLE_TURN_CASES)
def test_single_turn_examples(
    example: str, pot: int, bids: tuple[int, ...], winner: int, mode: str
) -> None:
    state = start(len(bids), first=(pot,))
    assert ENGINE.view(state, None)["pot"] == [pot]
    result = play(state, *bids)
    assert result.public["winner"] == winner, example
    assert result.public["mode"] == mode
    assert result.public["outcome"] == "won"
    expected = [0] * len(bids)
    expected[winner] = pot
    assert ENGINE.scores(result.state) == expected
    assert result.state["taken"][winner] == [pot]
    assert len(result.public["next_pot"]) == 1


def test_g4_all_cancel_keeps_the_pot_and_g4b_sum_decides_the_mode() -> None:
    state = start(4, first=(5, -2))
    result = play(state, 10, 10, 6, 6)
    assert result.public["winner"] is None
    assert result.public["outcome"] == "cancelled"
    after = result.state
    for seat, card in enumerate((10, 10, 6, 6)):
        assert {"card": card} not in ENGINE.legal_moves(after, seat)
    assert after["piles"] == [10, 10, 6, 6]
    assert ENGINE.view(after, 0)["pot"] == [5, -2]
    assert ENGINE.view(after, 0)["mode"] == "mouse"
    result = play(after, 13, 2, 9, 7)
    assert result.public["pot"] == [5, -2]
    assert result.public["mode"] == "mouse"
    assert result.public["winner"] == 0
    assert ENGINE.scores(result.state) == [3, 0, 0, 0]


def test_g5_a_pot_summing_to_zero_is_mouse_mode() -> None:
    state = play(start(3, first=(4, -4)), 1, 1, 1).state
    assert ENGINE.view(state, None)["pot"] == [4, -4]
    result = play(state, 3, 8, 12)
    assert result.public["mode"] == "mouse"
    assert result.public["winner"] == 2
    assert ENGINE.scores(result.state) == [0, 0, 0]
    assert sorted(result.state["taken"][2]) == [-4, 4]


LAST_TURN_HANDS = [c for c in range(1, 13)]  # removed bids 13, 14, 15 for both seats


def test_g9_all_cancel_on_the_last_turn_removes_the_pot() -> None:
    state = start(2, last=(9,), removed_bids=[13, 14, 15])
    assert state["variant"]
    rest = [c for c in LAST_TURN_HANDS if c != 7]
    state = play_all(state, distinct_pairs(rest, rest))
    assert ENGINE.view(state, None)["pot"] == [9]
    assert ENGINE.legal_moves(state, 0) == [{"card": 7}]
    assert ENGINE.legal_moves(state, 1) == [{"card": 7}]
    before = ENGINE.scores(state)
    result = play(state, 7, 7)
    assert result.public["winner"] is None
    assert result.public["outcome"] == "removed"
    assert result.public["over"] is True
    assert ENGINE.scores(result.state) == before
    assert result.state["removed"] == [9]
    assert ENGINE.view(result.state, None)["pot"] == []
    assert ENGINE.to_act(result.state) is None


def test_g10_last_turn_vulture_mode_lowest_bid_takes_both() -> None:
    state = start(2, last=(2, -5), removed_bids=[13, 14, 15])
    seat0 = [c for c in LAST_TURN_HANDS if c not in (3, 12)]
    seat1 = [c for c in LAST_TURN_HANDS if c not in (11, 12)]
    state = play_all(state, distinct_pairs(seat0, seat1))
    assert ENGINE.view(state, None)["pot"] == [2]
    state = play(state, 12, 12).state  # all-cancel: the +2 stays
    assert ENGINE.view(state, None)["pot"] == [2, -5]
    before = ENGINE.scores(state)
    result = play(state, 3, 11)
    assert result.public["mode"] == "vulture"
    assert result.public["winner"] == 0
    assert ENGINE.scores(result.state) == [before[0] - 3, before[1]]
    assert result.state["over"]


# --- G11, G12: final tie-breaks ------------------------------------------------------------------

G11_TAKEN = [[10, 8], [9, 7, 2], [6, 5, 1]]  # totals 18, 18, 12; highest mice 10, 9, 6


@pytest.mark.parametrize(
    ("tiebreak", "winners", "ranking"),
    [
        ("cancel", (2,), ((2,), (0, 1))),
        ("highest_mouse", (0,), ((0,), (1,), (2,))),
        ("shared", (0, 1), ((0, 1), (2,))),
    ],
)
def test_g11_final_tiebreak(
    tiebreak: str, winners: tuple[int, ...], ranking: tuple[tuple[int, ...], ...]
) -> None:
    state = over_state(3, G11_TAKEN, final_tiebreak=tiebreak)
    assert ENGINE.scores(state) == [18, 18, 12]
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.scores == (18, 18, 12)
    assert outcome.winners == winners
    assert outcome.ranking == ranking


@pytest.mark.parametrize(
    ("tiebreak", "winners", "ranking"),
    [
        ("cancel", (), ((0, 1), (2, 3))),
        ("shared", (0, 1), ((0, 1), (2, 3))),
        ("highest_mouse", (1,), ((1,), (0,), (2,), (3,))),
    ],
)
def test_g12_every_total_shared(
    tiebreak: str, winners: tuple[int, ...], ranking: tuple[tuple[int, ...], ...]
) -> None:
    taken = [[4, 6], [7, 3], [-1, 1, 5], [2, 3]]  # 10, 10, 5, 5; mice 6, 7, 5, 3
    outcome = ENGINE.outcome(over_state(4, taken, final_tiebreak=tiebreak))
    assert outcome is not None
    assert outcome.scores == (10, 10, 5, 5)
    assert outcome.winners == winners
    assert outcome.ranking == ranking


def test_highest_mouse_still_tied_is_shared() -> None:
    taken = [[10, -2], [10, -2], [3]]
    outcome = ENGINE.outcome(over_state(3, taken, final_tiebreak="highest_mouse"))
    assert outcome is not None
    assert outcome.winners == (0, 1)
    assert outcome.ranking == ((0, 1), (2,))


def test_highest_mouse_without_any_mouse_counts_as_zero() -> None:
    taken = [[], [-1, 1], [-3]]  # totals 0, 0, -3; mice 0, 1
    outcome = ENGINE.outcome(over_state(3, taken, final_tiebreak="highest_mouse"))
    assert outcome is not None
    assert outcome.winners == (1,)


@pytest.mark.parametrize(
    ("tiebreak", "forfeited", "winners", "ranking"),
    [
        ("cancel", {2}, (), ((0, 1), (2,))),
        ("cancel", {1}, (0,), ((0,), (2,), (1,))),
        ("shared", {0}, (1,), ((1,), (2,), (0,))),
        ("highest_mouse", {0}, (1,), ((1,), (2,), (0,))),
        ("cancel", {0, 1}, (2,), ((2,), (0, 1))),
    ],
)
def test_forfeited_seats_never_win_and_rank_last(
    tiebreak: str,
    forfeited: set[int],
    winners: tuple[int, ...],
    ranking: tuple[tuple[int, ...], ...],
) -> None:
    state = over_state(3, G11_TAKEN, final_tiebreak=tiebreak)
    outcome = ENGINE.outcome(state, frozenset(forfeited))
    assert outcome is not None
    assert outcome.scores == (18, 18, 12)
    assert outcome.winners == winners
    assert outcome.ranking == ranking


def test_outcome_is_none_while_running() -> None:
    assert ENGINE.outcome(ENGINE.initial_state(3, {}, make_rng())) is None


# --- G13: the two-player variant -----------------------------------------------------------------


def test_g13_two_player_variant() -> None:
    state = ENGINE.initial_state(2, {}, make_rng())
    assert state["variant"] is True
    assert state["options"]["two_player_variant"] is None
    for seat in (0, 1):
        view = ENGINE.view(state, seat)
        assert len(view["hand"]) == 12
        assert len(view["removed_bids"]) == 3
        assert sorted(view["hand"] + view["removed_bids"]) == list(BID_CARDS)
        assert view["removed_prizes"] == 3
        assert len(view["remaining_prizes"]) == 14  # 11 unturned + 3 removed
        assert view["turns"] == 12
    assert len(state["pot"]) + len(state["stock"]) == 12
    turned = list(state["pot"])
    steps = 0
    while ENGINE.to_act(state) is not None:
        state = play(state, min(state["hands"][0]), max(state["hands"][1])).state
        turned.extend(state["pot"][-1:] if not state["over"] else [])
        steps += 1
    assert steps == 12
    assert len(turned) == 12
    assert len(set(turned)) == 12
    assert len(state["history"]) == 12


def test_variant_views_hide_removed_cards() -> None:
    state = ENGINE.initial_state(2, {"two_player_variant": True}, make_rng())
    spectator = ENGINE.view(state, None)
    assert "hand" not in spectator
    assert "removed_bids" not in spectator
    mine = ENGINE.view(state, 0)
    assert mine["removed_bids"] == state["removed_bids"][0]
    text = json.dumps(mine)
    for key in ("stock", "removed_points", "future", "hands"):
        assert f'"{key}"' not in text
    assert sorted(state["stock"] + state["removed_points"]) == mine["remaining_prizes"]


def test_variant_automatic_and_explicit() -> None:
    assert ENGINE.initial_state(3, {}, make_rng())["variant"] is False
    assert ENGINE.initial_state(2, {"two_player_variant": None}, make_rng())["variant"] is True
    off = ENGINE.initial_state(2, {"two_player_variant": False}, make_rng())
    assert off["variant"] is False
    assert off["turns"] == 15
    assert off["removed_points"] == []
    assert ENGINE.view(off, 0)["removed_prizes"] == 0
    assert "removed_bids" not in ENGINE.view(off, 0)
    assert ENGINE.view(off, 0)["hand"] == list(BID_CARDS)
    assert ENGINE.validate_options({"two_player_variant": None}, 2)["two_player_variant"] is None
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options({"two_player_variant": True}, 3)
    assert list(caught.value.errors) == ["options.two_player_variant"]


# --- G14: illegal moves --------------------------------------------------------------------------


def test_g14_illegal_moves_are_rejected_and_change_nothing() -> None:
    state = play(start(3), 5, 6, 7).state
    frozen = copy.deepcopy(state)
    with pytest.raises(IllegalMove, match="card 5 has already been played"):
        ENGINE.check_move(state, 0, {"card": 5})
    with pytest.raises(IllegalMove, match="card 16 is not in your hand"):
        ENGINE.check_move(state, 0, {"card": 16})
    with pytest.raises(IllegalMove, match="card 0 is not in your hand"):
        ENGINE.check_move(state, 0, {"card": 0})
    for bad in ({"card": True}, {"card": "5"}, {"card": None}, {"cards": 5}, {}, None):
        with pytest.raises(IllegalMove):
            ENGINE.check_move(state, 1, bad)  # type: ignore[arg-type]
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {0: {"card": 5}, 1: {"card": 1}, 2: {"card": 1}})
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {0: {"card": 1}, 1: {"card": 1}})
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 3, {"card": 1})
    assert state == frozen
    # A second, different bid in the same turn is refused by the services (one move row per
    # seat and step); the engine takes exactly one move per acting seat.


def test_removed_bid_cards_are_rejected() -> None:
    state = start(2, removed_bids=[13, 14, 15])
    with pytest.raises(IllegalMove, match="card 14 was removed"):
        ENGINE.check_move(state, 1, {"card": 14})


# --- deals ---------------------------------------------------------------------------------------


def test_several_deals_number_their_history_and_add_totals() -> None:
    state = ENGINE.initial_state(3, {"deals": 3}, make_rng())
    assert ENGINE.view(state, 0)["deals"] == 3
    totals_by_deal = [[0, 0, 0] for _ in range(3)]
    while ENGINE.to_act(state) is not None:
        view = ENGINE.view(state, 1)
        deal = view["deal"]
        if view["turn"] == 1:
            assert view["hand"] == list(BID_CARDS)
            assert view["piles"] == [None, None, None]
            assert len(view["remaining_prizes"]) == 14
        hands = state["hands"]
        result = play(state, min(hands[0]), max(hands[1]), sorted(hands[2])[len(hands[2]) // 2])
        assert result.public["deal"] == deal
        if result.public["winner"] is not None:
            totals_by_deal[deal - 1][result.public["winner"]] += sum(result.public["pot"])
        state = result.state
    history = ENGINE.view(state, None)["history"]
    assert [entry["step"] for entry in history] == list(range(1, 46))
    assert [entry["deal"] for entry in history] == [1] * 15 + [2] * 15 + [3] * 15
    assert state["step"] == 46
    assert ENGINE.scores(state) == [sum(t[s] for t in totals_by_deal) for s in range(3)]
    taken = sum(ENGINE.scores(state)) + sum(state["removed"])
    assert taken == 3 * sum(POINT_CARDS)


def test_every_deal_is_drawn_up_front_in_the_documented_order() -> None:
    rng = make_rng()
    expected = []
    for _ in range(2):
        deck = rng.shuffled(list(POINT_CARDS))
        bids = [sorted(rng.shuffled(list(BID_CARDS))[:3]) for _ in range(2)]
        expected.append((deck[3:], sorted(deck[:3]), bids))
    state = ENGINE.initial_state(2, {"deals": 2}, make_rng())
    deck, removed_points, removed_bids = expected[0]
    assert state["pot"] + state["stock"] == deck
    assert state["removed_points"] == removed_points
    assert state["removed_bids"] == removed_bids
    assert state["future"] == [
        {"deck": expected[1][0], "removed_points": expected[1][1], "removed_bids": expected[1][2]}
    ]


def test_the_first_deck_is_pinned() -> None:
    state = ENGINE.initial_state(3, {}, make_rng())
    assert state["pot"] == [1]
    assert state["stock"] == [8, 2, 7, -2, 10, -5, 6, -4, 9, 5, 3, 4, -1, -3]


def test_variant_deals_reset_removed_cards_and_tell_each_seat_privately() -> None:
    state = ENGINE.initial_state(2, {"deals": 2}, make_rng())
    coming = state["future"][0]
    result = None
    while state["deal"] == 1:
        result = play(state, min(state["hands"][0]), max(state["hands"][1]))
        state = result.state
    assert result is not None
    assert result.public["next_deal"] == 2
    assert result.private == {
        seat: {"removed_bids": coming["removed_bids"][seat]} for seat in (0, 1)
    }
    assert state["removed_points"] == coming["removed_points"]
    assert ENGINE.view(state, 0)["removed_bids"] == coming["removed_bids"][0]
    assert state["pot"] + state["stock"] == coming["deck"]


# --- history: table_only -------------------------------------------------------------------------


def test_table_only_shows_piles_and_no_history() -> None:
    state = start(3, history="table_only", deals=2)
    assert ENGINE.history_mode(state["options"]) == "table_only"
    assert ENGINE.view(state, 0)["piles"] == [None, None, None]
    state = play(state, 3, 9, 12).state
    state = play(state, 4, 1, 15).state
    for seat in (None, 0, 1, 2):
        view = ENGINE.view(state, seat)
        assert view["history"] == []
        assert view["piles"] == [4, 1, 15]
        text = json.dumps(view)
        assert '"bids"' not in text
        assert '"hands"' not in text
        if seat is None:
            assert "hand" not in view
        else:
            assert view["hand"] == sorted(state["hands"][seat])
    # seat 0 cannot read that seat 1 once bid 9, from any field
    view = ENGINE.view(state, 0)
    assert 9 not in view["piles"]
    assert "hand" in view and 9 in view["hand"]  # its own 9 is still in hand


def test_table_only_piles_reset_at_a_new_deal() -> None:
    state = start(2, history="table_only", deals=2, two_player_variant=False)
    while state["deal"] == 1:
        state = play(state, min(state["hands"][0]), max(state["hands"][1])).state
    assert ENGINE.view(state, 1)["piles"] == [None, None]
    assert ENGINE.view(state, 1)["hand"] == list(BID_CARDS)


def test_full_history_mode() -> None:
    state = play(start(3, first=(6,)), 3, 9, 12).state
    assert ENGINE.history_mode(state["options"]) == "full"
    view = ENGINE.view(state, 0)
    assert view["history"] == [
        {
            "step": 1,
            "deal": 1,
            "pot": [6],
            "bids": [3, 9, 12],
            "winner": 2,
            "mode": "mouse",
            "outcome": "won",
        }
    ]
    assert view["piles"] == [3, 9, 12]


def test_timeout_move_is_the_lowest_card() -> None:
    state = play(start(3), 1, 2, 3).state
    assert ENGINE.timeout_move(state, 0) == {"card": 2}
    assert ENGINE.timeout_move(state, 2) == {"card": 1}


# --- option validation -----------------------------------------------------------------------


def test_defaults_are_filled() -> None:
    assert ENGINE.validate_options({}, 4) == {
        "two_player_variant": None,
        "final_tiebreak": "cancel",
        "deals": 1,
        "history": "full",
    }


def test_schema_lists_every_option_with_a_default() -> None:
    schema = ENGINE.options_schema
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {
        "two_player_variant",
        "final_tiebreak",
        "deals",
        "history",
    }
    assert all("default" in prop for prop in schema["properties"].values())
    assert "automatic" in schema["properties"]["two_player_variant"]["description"]


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"two_player_variant": "yes"}, "options.two_player_variant"),
        ({"final_tiebreak": "coin"}, "options.final_tiebreak"),
        ({"deals": 0}, "options.deals"),
        ({"deals": 6}, "options.deals"),
        ({"deals": True}, "options.deals"),
        ({"history": "none"}, "options.history"),
        ({"vultures": 6}, "options.vultures"),
    ],
)
def test_invalid_options(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options(options, 3)
    assert list(caught.value.errors) == [field]


@pytest.mark.parametrize("players", [0, 1, 6])
def test_seat_count_out_of_range(players: int) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options({}, players)
    assert list(caught.value.errors) == ["seats"]
