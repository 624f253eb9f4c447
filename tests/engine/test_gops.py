"""GOPS: the worked examples P1-P7 of the rules, every option and option validation."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest

from cardgames.engines.gops import ENGINE
from cardgames.engines.protocol import IllegalMove, InvalidOptions, Resolution, State
from cardgames.engines.rng import DealRng

SEED = bytes(range(32))
MATCH_ID = "00000000-0000-0000-0000-000000000001"


def make_rng() -> DealRng:
    return DealRng(SEED, MATCH_ID, ["alice", None])


def start(players: int, prizes: list[int], **options: Any) -> State:
    """A fresh game whose prize stock turns up ``prizes`` first, then the other cards upwards."""
    state = ENGINE.initial_state(players, {"prize_order": "ascending", **options}, make_rng())
    n = state["options"]["num_cards"]
    order = prizes + [card for card in range(1, n + 1) if card not in prizes]
    state["pot"] = order[:1]
    state["stock"] = order[1:]
    return state


def play(state: State, *bids: int) -> Resolution:
    return ENGINE.apply(state, {seat: {"card": card} for seat, card in enumerate(bids)})


def play_all(state: State, turns: Sequence[tuple[int, ...]]) -> State:
    for bids in turns:
        state = play(state, *bids).state
    return state


# --- worked examples ---------------------------------------------------------------------------


def test_p1_two_player_penguin_tie_carries_the_pot() -> None:
    state = start(2, [5, 13], tie_rule="penguin")
    result = play(state, 7, 7)
    assert result.public["winner"] is None
    assert result.public["outcome"] == "carried"
    assert result.public["pot"] == [5]
    assert result.public["scores"] == [0, 0]
    after = result.state
    assert ENGINE.scores(after) == [0, 0]
    for seat in (0, 1):
        assert {"card": 7} not in ENGINE.legal_moves(after, seat)
        with pytest.raises(IllegalMove, match="card 7 has already been played"):
            ENGINE.check_move(after, seat, {"card": 7})
    # P1b: the next prize joins the carried one; 9 beats 8 and takes both.
    assert ENGINE.view(after, 0)["pot"] == [5, 13]
    result = play(after, 9, 8)
    assert result.public["pot"] == [5, 13]
    assert result.public["winner"] == 0
    assert result.public["outcome"] == "won"
    assert ENGINE.scores(result.state) == [18, 0]


def test_p2_three_player_penguin_two_way_tie_goes_to_the_third_player() -> None:
    result = play(start(3, [12], tie_rule="penguin"), 10, 10, 2)
    assert result.public["winner"] == 2
    assert result.public["outcome"] == "third_player"
    assert ENGINE.scores(result.state) == [0, 0, 12]


def test_p3_three_player_penguin_three_way_tie_carries() -> None:
    state = start(3, [4, 6], tie_rule="penguin")
    result = play(state, 11, 11, 11)
    assert result.public["outcome"] == "carried"
    assert result.public["winner"] is None
    assert result.public["next_pot"] == [4, 6]
    result = play(result.state, 3, 8, 1)
    assert result.public["winner"] == 1
    assert ENGINE.scores(result.state) == [0, 10, 0]


# Seat 0 wins the first eleven turns of 1 ... 13 except the 2 (saved for last) and seat 1 the
# twelfth; both keep their 7 for the last turn.
P4_TURNS = list(
    zip(
        [2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 1],
        [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13],
        strict=True,
    )
)
P4_PRIZES = [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 2]


def p4_state(final_tie: str, tie_rule: str = "penguin") -> State:
    state = start(2, P4_PRIZES, tie_rule=tie_rule, final_tie=final_tie)
    state = play_all(state, P4_TURNS)
    assert ENGINE.view(state, 0)["pot"] == [2]
    assert ENGINE.legal_moves(state, 0) == [{"card": 7}]
    assert ENGINE.legal_moves(state, 1) == [{"card": 7}]
    return state


def test_p4_last_turn_tie_discarded_by_default() -> None:
    state = p4_state("discard")
    before = ENGINE.scores(state)
    assert sum(before) == 89
    result = play(state, 7, 7)
    assert result.public["winner"] is None
    assert result.public["outcome"] == "discarded"
    assert ENGINE.scores(result.state) == before
    assert result.state["discarded"] == [2]
    assert ENGINE.to_act(result.state) is None


def test_p4_last_turn_tie_to_game_winner_goes_to_the_leader() -> None:
    state = p4_state("to_game_winner")
    before = ENGINE.scores(state)
    assert before[0] > before[1]
    result = play(state, 7, 7)
    assert result.public["winner"] == 0
    assert result.public["outcome"] == "to_game_winner"
    assert ENGINE.scores(result.state) == [before[0] + 2, before[1]]


def test_p4_discard_rule_discards_the_last_tie_whatever_final_tie_says() -> None:
    state = p4_state("to_game_winner", tie_rule="discard")
    result = play(state, 7, 7)
    assert result.public["winner"] is None
    assert result.public["outcome"] == "discarded"


def test_p4b_three_player_penguin_last_turn_two_way_tie_goes_to_the_third() -> None:
    for final_tie in ("discard", "to_game_winner"):
        state = start(3, [1, 2, 3, 4, 5], tie_rule="penguin", final_tie=final_tie, num_cards=5)
        state = play_all(state, [(1, 1, 1), (2, 2, 3), (3, 3, 4), (4, 4, 5)])
        assert [ENGINE.legal_moves(state, s) for s in range(3)] == [
            [{"card": 5}],
            [{"card": 5}],
            [{"card": 2}],
        ]
        result = play(state, 5, 5, 2)
        assert result.public["winner"] == 2
        assert result.public["outcome"] == "third_player"
        assert result.state["over"]


@pytest.mark.parametrize("tie_rule", ["penguin", "carry", "discard"])
def test_p5_ties_below_the_highest_bid_never_matter(tie_rule: str) -> None:
    result = play(start(3, [9], tie_rule=tie_rule), 5, 5, 9)
    assert result.public["winner"] == 2
    assert result.public["outcome"] == "won"
    assert ENGINE.scores(result.state) == [0, 0, 9]


def test_p6_three_player_discard_tie_is_discarded_not_given_to_the_third() -> None:
    result = play(start(3, [3], tie_rule="discard"), 3, 3, 1)
    assert result.public["winner"] is None
    assert result.public["outcome"] == "discarded"
    assert ENGINE.scores(result.state) == [0, 0, 0]
    assert result.state["discarded"] == [3]
    assert result.public["next_pot"] == [1]


def test_p7_illegal_moves_are_rejected_and_change_nothing() -> None:
    state = play(start(2, [5], num_cards=5), 3, 4).state
    frozen = copy.deepcopy(state)
    with pytest.raises(IllegalMove, match="card 3 has already been played"):
        ENGINE.check_move(state, 0, {"card": 3})
    with pytest.raises(IllegalMove, match="card 9 is not in your hand"):
        ENGINE.check_move(state, 0, {"card": 9})
    with pytest.raises(IllegalMove, match="card 0 is not in your hand"):
        ENGINE.check_move(state, 1, {"card": 0})
    for bad in ({"card": True}, {"card": "3"}, {"card": 2.0}, {"card": 2, "x": 1}, {}, [2], 2):
        with pytest.raises(IllegalMove):
            ENGINE.check_move(state, 0, bad)  # type: ignore[arg-type]
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {0: {"card": 3}, 1: {"card": 1}})  # spent card
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {0: {"card": 1}})  # a seat missing
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {0: {"card": 1}, 1: {"card": 1}, 2: {"card": 1}})  # extra seat
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 2, {"card": 1})
    assert state == frozen
    # A second, different bid in the same turn is refused by the services (one move row per
    # seat and step); the engine takes exactly one move per acting seat.
    assert ENGINE.legal_moves(state, 0) == [{"card": c} for c in (1, 2, 4, 5)]


def test_moves_after_the_end_are_rejected() -> None:
    state = play_all(start(2, [], num_cards=3), [(1, 2), (2, 3), (3, 1)])
    assert ENGINE.to_act(state) is None
    assert ENGINE.legal_moves(state, 0) == []
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.check_move(state, 0, {"card": 1})
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.apply(state, {0: {"card": 1}, 1: {"card": 1}})


# --- options: tie_rule ---------------------------------------------------------------------------

TIE_CASES = [
    # tie_rule, bids, winner, outcome
    ("penguin", (7, 7), None, "carried"),
    ("carry", (7, 7), None, "carried"),
    ("discard", (7, 7), None, "discarded"),
    ("penguin", (7, 7, 2), 2, "third_player"),
    ("carry", (7, 7, 2), None, "carried"),
    ("discard", (7, 7, 2), None, "discarded"),
    ("penguin", (7, 2, 7), 1, "third_player"),
    ("penguin", (7, 7, 7), None, "carried"),
    ("carry", (7, 7, 7), None, "carried"),
    ("discard", (7, 7, 7), None, "discarded"),
]


@pytest.mark.parametrize(("tie_rule", "bids", "winner", "outcome"), TIE_CASES)
def test_tie_rule(tie_rule: str, bids: tuple[int, ...], winner: int | None, outcome: str) -> None:
    state = start(len(bids), [8, 6], tie_rule=tie_rule)
    result = play(state, *bids)
    assert result.public["winner"] == winner
    assert result.public["outcome"] == outcome
    if outcome == "carried":
        assert result.public["next_pot"] == [8, 6]
    else:
        assert result.public["next_pot"] == [6]
    expected = [0] * len(bids)
    if winner is not None:
        expected[winner] = 8
    assert ENGINE.scores(result.state) == expected
    entry = ENGINE.view(result.state, None)["history"][-1]
    assert entry == {
        "step": 1,
        "pot": [8],
        "bids": list(bids),
        "winner": winner,
        "outcome": outcome,
    }


def test_carried_pot_grows_over_several_turns() -> None:
    state = start(2, [1, 2, 3], tie_rule="carry")
    state = play_all(state, [(5, 5), (6, 6)])
    assert ENGINE.view(state, 0)["pot"] == [1, 2, 3]
    result = play(state, 1, 9)
    assert result.public["winner"] == 1
    assert ENGINE.scores(result.state) == [0, 6]


# --- options: final_tie --------------------------------------------------------------------------

# 2 players, 4 cards, prizes 1..4 ascending: seat 1 takes 1, seat 0 takes 2, the 3 is tied, the
# last turn ties again: pot {3, 4} with seat 0 leading 2 to 1.
TWO_PLAYER_TURNS = [(1, 2), (2, 1), (3, 3)]
# 3 players, 4 cards: seat 2 takes 1, seat 1 takes 2, seat 0 takes 3; scores 3, 2, 1. Keyed by
# the card seat 2 keeps for the last turn (seats 0 and 1 keep their 4).
THREE_PLAYER_TURNS = {
    3: [(1, 2, 4), (2, 3, 1), (3, 1, 2)],
    4: [(1, 2, 3), (2, 3, 1), (3, 1, 2)],
}

FINAL_CASES = [
    # tie_rule, final_tie, players, last bids, winner, outcome, final scores
    ("penguin", "discard", 2, (4, 4), None, "discarded", [2, 1]),
    ("penguin", "to_game_winner", 2, (4, 4), 0, "to_game_winner", [9, 1]),
    ("carry", "discard", 2, (4, 4), None, "discarded", [2, 1]),
    ("carry", "to_game_winner", 2, (4, 4), 0, "to_game_winner", [9, 1]),
    ("discard", "discard", 2, (4, 4), None, "discarded", [2, 1]),
    ("discard", "to_game_winner", 2, (4, 4), None, "discarded", [2, 1]),
    ("penguin", "discard", 3, (4, 4, 4), None, "discarded", [3, 2, 1]),
    ("penguin", "to_game_winner", 3, (4, 4, 4), 0, "to_game_winner", [7, 2, 1]),
    ("penguin", "discard", 3, (4, 4, 3), 2, "third_player", [3, 2, 5]),
    ("penguin", "to_game_winner", 3, (4, 4, 3), 2, "third_player", [3, 2, 5]),
    ("carry", "discard", 3, (4, 4, 3), None, "discarded", [3, 2, 1]),
    ("carry", "to_game_winner", 3, (4, 4, 3), 0, "to_game_winner", [7, 2, 1]),
    ("carry", "to_game_winner", 3, (4, 4, 4), 0, "to_game_winner", [7, 2, 1]),
    ("discard", "to_game_winner", 3, (4, 4, 3), None, "discarded", [3, 2, 1]),
    ("discard", "to_game_winner", 3, (4, 4, 4), None, "discarded", [3, 2, 1]),
]


@pytest.mark.parametrize(
    ("tie_rule", "final_tie", "players", "bids", "winner", "outcome", "scores"), FINAL_CASES
)
def test_final_tie(
    tie_rule: str,
    final_tie: str,
    players: int,
    bids: tuple[int, ...],
    winner: int | None,
    outcome: str,
    scores: list[int],
) -> None:
    state = start(players, [1, 2, 3, 4], tie_rule=tie_rule, final_tie=final_tie, num_cards=4)
    if players == 2:
        state = play_all(state, TWO_PLAYER_TURNS)
        if tie_rule == "discard":
            assert state["discarded"] == [3]
        else:
            assert ENGINE.view(state, None)["pot"] == [3, 4]
    else:
        state = play_all(state, THREE_PLAYER_TURNS[bids[2]])
        assert ENGINE.scores(state) == [3, 2, 1]
    result = play(state, *bids)
    assert result.public["winner"] == winner
    assert result.public["outcome"] == outcome
    assert ENGINE.scores(result.state) == scores
    assert result.state["over"]


def test_final_tie_to_game_winner_with_level_scores_goes_to_nobody() -> None:
    state = start(2, [1, 2, 3, 4], final_tie="to_game_winner", num_cards=4)
    state = play_all(state, [(2, 1), (3, 2), (1, 3)])
    assert ENGINE.scores(state) == [3, 3]
    result = play(state, 4, 4)
    assert result.public["winner"] is None
    assert result.public["outcome"] == "discarded"
    assert ENGINE.scores(result.state) == [3, 3]
    outcome = ENGINE.outcome(result.state)
    assert outcome is not None
    assert outcome.winners == (0, 1)
    assert outcome.ranking == ((0, 1),)


# --- options: prize_order and num_cards ----------------------------------------------------------


def turned_up(state: State) -> list[int]:
    seen: list[int] = []
    while not state["over"]:
        seen.extend(card for card in ENGINE.view(state, None)["pot"] if card not in seen)
        state = play(state, *(min(state["hands"][s]) for s in range(state["players"]))).state
    return seen


def test_prize_order_ascending_and_descending() -> None:
    state = ENGINE.initial_state(2, {"prize_order": "ascending", "num_cards": 6}, make_rng())
    assert turned_up(state) == [1, 2, 3, 4, 5, 6]
    state = ENGINE.initial_state(2, {"prize_order": "descending", "num_cards": 6}, make_rng())
    assert turned_up(state) == [6, 5, 4, 3, 2, 1]


def test_prize_order_random_is_one_pinned_shuffle() -> None:
    state = ENGINE.initial_state(2, {}, make_rng())
    expected = [13, 11, 4, 8, 6, 9, 2, 3, 12, 10, 7, 1, 5]  # see test_rng.SHUFFLE_1_13
    assert state["pot"] == expected[:1]
    assert state["stock"] == expected[1:]
    assert turned_up(state) == expected
    again = ENGINE.initial_state(2, {"prize_order": "random"}, make_rng())
    assert again == state


def test_ordered_prizes_draw_nothing() -> None:
    rng = make_rng()
    ENGINE.initial_state(3, {"prize_order": "descending"}, rng)
    assert rng.next_u64() == make_rng().next_u64()


@pytest.mark.parametrize("num_cards", [3, 7, 13])
@pytest.mark.parametrize("players", [2, 3])
def test_num_cards(num_cards: int, players: int) -> None:
    state = ENGINE.initial_state(players, {"num_cards": num_cards}, make_rng())
    cards = list(range(1, num_cards + 1))
    assert sorted(state["pot"] + state["stock"]) == cards
    for seat in range(players):
        assert ENGINE.legal_moves(state, seat) == [{"card": c} for c in cards]
        assert ENGINE.view(state, seat)["hand"] == cards
    steps = 0
    while ENGINE.to_act(state) is not None:
        state = play(state, *(max(state["hands"][s]) for s in range(players))).state
        steps += 1
    assert steps == num_cards
    assert state["step"] == num_cards + 1
    assert sum(ENGINE.scores(state)) + sum(state["discarded"]) == sum(cards)


# --- views ---------------------------------------------------------------------------------------


def test_view_shows_own_hand_only_and_never_the_stock_order() -> None:
    state = ENGINE.initial_state(3, {}, make_rng())
    state = play(state, 1, 2, 3).state
    spectator = ENGINE.view(state, None)
    assert "hand" not in spectator
    assert spectator["remaining_prizes"] == sorted(state["stock"])
    assert spectator["cards_left"] == 11
    assert spectator["turn"] == 2
    assert spectator["history"][0]["bids"] == [1, 2, 3]
    for seat in range(3):
        view = ENGINE.view(state, seat)
        assert view["hand"] == sorted(state["hands"][seat])
        assert "stock" not in view
        assert {k: v for k, v in view.items() if k != "hand"} == spectator


def test_timeout_move_is_the_lowest_card() -> None:
    state = play(start(2, [], num_cards=5), 1, 3).state
    assert ENGINE.timeout_move(state, 0) == {"card": 2}
    assert ENGINE.timeout_move(state, 1) == {"card": 1}


def test_outcome_with_forfeits() -> None:
    state = play_all(start(3, [1, 2, 3], num_cards=3), [(3, 1, 2), (2, 3, 1), (1, 2, 3)])
    assert ENGINE.scores(state) == [1, 2, 3]
    assert ENGINE.outcome(state) is not None
    full = ENGINE.outcome(state)
    assert full is not None
    assert full.winners == (2,)
    assert full.ranking == ((2,), (1,), (0,))
    forfeit = ENGINE.outcome(state, frozenset({2}))
    assert forfeit is not None
    assert forfeit.scores == (1, 2, 3)
    assert forfeit.winners == (1,)
    assert forfeit.ranking == ((1,), (0,), (2,))
    everyone = ENGINE.outcome(state, frozenset({0, 1, 2}))
    assert everyone is not None
    assert everyone.winners == ()
    assert everyone.ranking == ((0, 1, 2),)


def test_history_mode_is_full() -> None:
    assert ENGINE.history_mode(ENGINE.validate_options({}, 2)) == "full"


# --- option validation -----------------------------------------------------------------------


def test_defaults_are_filled() -> None:
    assert ENGINE.validate_options({}, 2) == {
        "tie_rule": "penguin",
        "final_tie": "discard",
        "prize_order": "random",
        "num_cards": 13,
    }
    filled = ENGINE.validate_options({"num_cards": 5.0, "tie_rule": "carry"}, 3)
    assert filled["num_cards"] == 5
    assert isinstance(filled["num_cards"], int)
    assert ENGINE.validate_options(filled, 3) == filled


def test_schema_lists_every_option_with_a_default() -> None:
    schema = ENGINE.options_schema
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"tie_rule", "final_tie", "prize_order", "num_cards"}
    assert all("default" in prop for prop in schema["properties"].values())


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"tie_rule": "coin"}, "options.tie_rule"),
        ({"final_tie": "leader"}, "options.final_tie"),
        ({"prize_order": "shuffled"}, "options.prize_order"),
        ({"num_cards": 2}, "options.num_cards"),
        ({"num_cards": 14}, "options.num_cards"),
        ({"num_cards": "13"}, "options.num_cards"),
        ({"num_cards": True}, "options.num_cards"),
        ({"num_cards": 5.5}, "options.num_cards"),
        ({"jokers": 2}, "options.jokers"),
    ],
)
def test_invalid_options(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options(options, 2)
    assert list(caught.value.errors) == [field]
    assert caught.value.errors[field]


@pytest.mark.parametrize("players", [0, 1, 4, 5])
def test_seat_count_out_of_range(players: int) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options({}, players)
    assert "seats" in caught.value.errors


def test_initial_state_validates_options() -> None:
    with pytest.raises(InvalidOptions):
        ENGINE.initial_state(2, {"tie_rule": "coin"}, make_rng())
