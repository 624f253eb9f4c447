"""Old Men of the Forest: the worked examples M1-M9 of the rules, every option, views,
validation, the (placeholder) card data and seeded random playouts with the protocol's
invariants."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import Any

import pytest

from cardgames.engines.old_men_of_the_forest import (
    CARDS,
    DATA_PATH,
    ENGINE,
    ORANGUTAN_IDS,
    ORANGUTANS,
    PLACEHOLDER,
    TRICKS,
    draw_start_player,
    sort_cards,
    value_of,
)
from cardgames.engines.protocol import IllegalMove, InvalidOptions, Resolution, State
from cardgames.engines.rng import DealRng
from tests.scale import scaled

SEED = bytes(range(32))
MATCH_ID = "00000000-0000-0000-0000-000000000007"


def make_rng(match_id: str = MATCH_ID) -> DealRng:
    return DealRng(SEED, match_id, ["alice", None, "carol"])


def table(
    hands: Sequence[Sequence[str]],
    *,
    leader: int = 0,
    layout: Sequence[str] = (),
    deck: Sequence[str] | None = None,
    collections: Sequence[Sequence[str]] | None = None,
    trick_number: int = 1,
    **options: Any,
) -> State:
    """A game of ``len(hands)`` players whose current trick starts with these hands."""
    players = len(hands)
    state = ENGINE.initial_state(players, options, make_rng())
    held = [card for hand in hands for card in hand]
    held += [card for coll in collections or () for card in coll]
    assert len(set(held)) == len(held)
    state["hands"] = [sort_cards(hand) for hand in hands]
    state["undealt"] = sort_cards(card for card in CARDS if card not in held)
    state["layout"] = list(layout)
    if deck is None:
        deck = [ident for ident in ORANGUTAN_IDS if ident not in layout]
    state["deck"] = list(deck)
    state["collections"] = [list(coll) for coll in collections or [[] for _ in hands]]
    state["leader"] = state["current"] = leader
    state["trick_number"] = trick_number
    return state


def act(state: State, move: dict[str, Any]) -> Resolution:
    to_act = ENGINE.to_act(state)
    assert to_act is not None and not to_act.simultaneous
    return ENGINE.apply(state, {to_act.seats[0]: move})


def play_moves(state: State, moves: Sequence[dict[str, Any]]) -> State:
    for move in moves:
        state = act(state, move).state
    return state


def finish_by_timeout(state: State) -> State:
    while (to_act := ENGINE.to_act(state)) is not None:
        seat = to_act.seats[0]
        state = ENGINE.apply(state, {seat: ENGINE.timeout_move(state, seat)}).state
    return state


# --- card data -------------------------------------------------------------------------------


def test_card_data_loads_and_is_flagged_placeholder() -> None:
    text = (resources.files("cardgames.engines") / DATA_PATH).read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["placeholder"] is True
    assert PLACEHOLDER is True
    assert len(ORANGUTAN_IDS) == 16
    assert tuple(sorted(ORANGUTAN_IDS)) == ORANGUTAN_IDS
    baby = ORANGUTANS["OU01"]
    assert (baby["name"], baby["points"], baby["requires"]) == ("Baby", 3, {"Y": 1})
    for card in ORANGUTANS.values():
        assert set(card["requires"]) <= {"R", "B", "Y", "G"}
    view = ENGINE.view(ENGINE.initial_state(3, {}, make_rng()), None)
    assert view["placeholder"] is True
    assert "stand-in" in view["placeholder_note"].lower()
    assert "OU01" in view["placeholder_note"]


def test_module_docstring_names_the_placeholder() -> None:
    import cardgames.engines.old_men_of_the_forest as module

    doc = module.__doc__ or ""
    assert "placeholder" in doc
    assert "OU01" in doc
    for option in ("allow_five", "deforestation_penalty", "games"):
        assert option in doc


def test_fifty_player_cards() -> None:
    assert len(CARDS) == 50 == len(set(CARDS))
    assert {card[0] for card in CARDS} == {"R", "B", "Y", "G", "X"}
    assert sorted({value_of(card) for card in CARDS}) == list(range(1, 11))


# --- M1: start player ------------------------------------------------------------------------


def drawer(cards: Sequence[str]) -> Iterator[str]:
    yield from cards


def test_m1_tied_highest_draw_again() -> None:
    cards = drawer(["R7", "B9", "Y9", "G4", "X2"])
    rounds, start = draw_start_player(lambda: next(cards), 3)
    assert start == 1
    assert rounds == [
        [{"seat": 0, "card": "R7"}, {"seat": 1, "card": "B9"}, {"seat": 2, "card": "Y9"}],
        [{"seat": 1, "card": "G4"}, {"seat": 2, "card": "X2"}],
    ]


def test_m1_repeated_ties_among_the_tied_only() -> None:
    cards = drawer(["R9", "B9", "Y9", "G2", "X5", "Y5", "R1", "B6", "Y3"])
    rounds, start = draw_start_player(lambda: next(cards), 4)
    # 9, 9, 9, 2 -> seats 0-2 again: 5, 5, 1 -> seats 0, 1 again: 6 vs 3 -> seat 0
    assert [len(r) for r in rounds[:3]] == [4, 3, 2]
    assert rounds[1] == [
        {"seat": 0, "card": "X5"},
        {"seat": 1, "card": "Y5"},
        {"seat": 2, "card": "R1"},
    ]
    assert start == 0


def test_deal_draw_order_is_documented() -> None:
    """Per game: start-player shuffle, deal shuffle, orang-utan shuffle (all up front)."""
    rng = make_rng()
    expected = []
    for _ in range(2):
        pile = list(reversed(rng.shuffled(list(CARDS))))
        rounds, start = draw_start_player(pile.pop, 4)
        dealt = rng.shuffled(list(CARDS))
        ous = rng.shuffled(list(ORANGUTAN_IDS))
        expected.append((rounds, start, dealt, ous))
    state = ENGINE.initial_state(4, {"games": 2}, make_rng())
    rounds, start, dealt, ous = expected[0]
    assert state["start"] == {"rounds": rounds, "seat": start}
    assert state["leader"] == state["current"] == start
    assert state["hands"] == [sort_cards(dealt[10 * s : 10 * s + 10]) for s in range(4)]
    assert state["undealt"] == sort_cards(dealt[40:])
    assert state["layout"] == ous[:5]
    assert state["deck"] == ous[5:]
    rounds2, start2, dealt2, ous2 = expected[1]
    (future,) = state["future"]
    assert future["start"] == {"rounds": rounds2, "seat": start2}
    assert future["hands"] == [sort_cards(dealt2[10 * s : 10 * s + 10]) for s in range(4)]
    assert future["layout"] == ous2[:5]
    assert future["deck"] == ous2[5:]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_sizes(players: int) -> None:
    state = ENGINE.initial_state(players, {"allow_five": True}, make_rng())
    assert [len(hand) for hand in state["hands"]] == [10] * players
    assert len(state["undealt"]) == 50 - 10 * players
    assert sorted([c for hand in state["hands"] for c in hand] + state["undealt"]) == sorted(CARDS)
    assert len(state["layout"]) == players + 1
    assert len(state["deck"]) == 16 - players - 1
    start = state["start"]
    last = start["rounds"][-1]
    best = max(value_of(e["card"]) for e in last)
    assert [e["seat"] for e in last if value_of(e["card"]) == best] == [start["seat"]]
    assert ENGINE.to_act(state) is not None
    assert ENGINE.to_act(state).seats == (start["seat"],)  # type: ignore[union-attr]


# --- M2 / M3: a trick, ranking, taking and cashing in ----------------------------------------

ABBY, BEN, HANNAH, GEORGE = 0, 1, 2, 3


def m2_table(layout: Sequence[str], hannah_holds: Sequence[str] = ()) -> State:
    return table(
        [["R3", "R4"], ["Y8", "B1"], ["B5", "B2"], ["G5", "G6"]],
        leader=ABBY,
        layout=layout,
        deck=["OU07", "OU08"],
        collections=[[], [], list(hannah_holds), []],
    )


def test_m2_ranking_and_takes() -> None:
    state = m2_table(["OU05", "OU10", "OU12", "OU13", "OU16"])
    plays = [{"play": "R3"}, {"play": "Y8"}, {"play": "B5"}, {"play": "G5"}]
    for seat, move in enumerate(plays):
        assert ENGINE.to_act(state).seats == (seat,)  # type: ignore[union-attr]
        result = act(state, move)
        assert result.public["kind"] == "play"
        assert result.public["seat"] == seat
        assert result.public["card"] == move["play"]
        state = result.state
    assert result.public["ranked"] == [BEN, HANNAH]
    assert state["phase"] == "take"
    assert ENGINE.to_act(state).seats == (BEN,)  # type: ignore[union-attr]
    assert ENGINE.legal_moves(state, BEN) == [{"take": c} for c in ("R3", "B5", "G5")]
    result = act(state, {"take": "B5"})
    assert result.public["cash_in_open"] is False
    state = result.state
    assert ENGINE.to_act(state).seats == (HANNAH,)  # type: ignore[union-attr]
    assert ENGINE.legal_moves(state, HANNAH) == [{"take": c} for c in ("R3", "Y8", "G5")]
    result = act(state, {"take": "Y8"})
    assert result.public["trick_end"] == {"discarded": ["R3", "G5"], "refill": [], "leader": BEN}
    state = result.state
    assert state["collections"] == [[], ["B5"], ["Y8"], []]
    assert sort_cards(state["discarded"]) == ["R3", "G5"]
    assert state["leader"] == BEN
    assert ENGINE.to_act(state).seats == (BEN,)  # type: ignore[union-attr]
    assert state["phase"] == "play"
    assert state["trick_number"] == 2
    (entry,) = ENGINE.view(state, None)["history"]
    assert entry["ranked"] == [BEN, HANNAH]
    assert entry["takes"] == [{"seat": BEN, "card": "B5"}, {"seat": HANNAH, "card": "Y8"}]
    assert entry["discarded"] == ["R3", "G5"]


def test_m3_cash_in_for_the_baby() -> None:
    state = m2_table(["OU01", "OU05", "OU10", "OU12", "OU16"], hannah_holds=["G2"])
    state = play_moves(state, [{"play": "R3"}, {"play": "Y8"}, {"play": "B5"}, {"play": "G5"}])
    result = act(state, {"take": "B5"})
    # Ben [B5] cannot afford anything: no decision step for him.
    assert result.public["cash_in_open"] is False
    state = result.state
    assert state["phase"] == "take" and state["current"] == HANNAH
    result = act(state, {"take": "Y8"})
    assert result.public["cash_in_open"] is True
    state = result.state
    assert state["phase"] == "cash_in" and state["current"] == HANNAH
    assert ENGINE.legal_moves(state, HANNAH) == [
        {"cash_in": None},
        {"cash_in": {"orangutan": "OU01"}},
    ]
    result = act(state, {"cash_in": {"orangutan": "OU01"}})
    public = result.public
    assert public["kind"] == "cash_in"
    assert public["orangutan"] == "OU01"
    assert public["points"] == 3
    assert public["discarded"] == ["Y8"]
    assert public["under"] == ["G2"]
    assert public["trick_end"] == {"discarded": ["R3", "G5"], "refill": ["OU07"], "leader": BEN}
    state = result.state
    assert state["won"][HANNAH] == [{"orangutan": "OU01", "under": ["G2"]}]
    assert state["collections"][HANNAH] == []
    assert ENGINE.scores(state) == [0, -1, 2, 0]  # Baby nets 2; Ben's B5 is -1 so far
    assert state["layout"] == ["OU05", "OU10", "OU12", "OU16", "OU07"]
    assert ENGINE.view(state, None)["orangutans_left"] == 1
    view = ENGINE.view(state, ABBY)
    assert view["won"][HANNAH] == [
        {"orangutan": "OU01", "name": "Baby", "points": 3, "under": ["G2"]}
    ]
    assert view["history"][0]["cash_ins"] == [
        {"seat": HANNAH, "orangutan": "OU01", "points": 3, "discarded": ["Y8"], "under": ["G2"]}
    ]


def test_declining_a_cash_in_keeps_the_collection() -> None:
    state = m2_table(["OU01", "OU05", "OU10", "OU12", "OU16"], hannah_holds=["G2"])
    state = play_moves(state, [{"play": "R3"}, {"play": "Y8"}, {"play": "B5"}, {"play": "G5"}])
    state = play_moves(state, [{"take": "B5"}, {"take": "Y8"}])
    result = act(state, {"cash_in": None})
    assert result.public["orangutan"] is None
    assert result.public["trick_end"]["refill"] == []
    state = result.state
    assert state["collections"][HANNAH] == ["G2", "Y8"]
    assert "OU01" in state["layout"]
    assert ENGINE.scores(state) == [0, -1, -2, 0]


def test_the_first_takers_cash_in_removes_the_orangutan_before_the_second_taker() -> None:
    # Ben (1st) and Hannah (2nd) could both afford OU01; only one Baby is in the layout.
    state = table(
        [["R3"], ["Y8"], ["Y5"], ["G5"]],
        layout=["OU01", "OU10", "OU12", "OU13", "OU16"],
        deck=[],
        collections=[[], [], ["Y2"], []],
    )
    state = play_moves(state, [{"play": "R3"}, {"play": "Y8"}, {"play": "Y5"}, {"play": "G5"}])
    state = act(state, {"take": "Y5"}).state
    assert state["phase"] == "cash_in" and state["current"] == BEN
    state = act(state, {"cash_in": {"orangutan": "OU01"}}).state
    result = act(state, {"take": "G5"})
    assert result.public["cash_in_open"] is False  # Hannah's Y2 no longer has a Baby to buy
    assert result.public["trick_end"]["refill"] == []  # the deck is empty: the layout shrinks
    assert result.state["layout"] == ["OU10", "OU12", "OU13", "OU16"]


# --- M4: ties rank the earlier player higher; a forced take ---------------------------------


def test_m4_tie_and_forced_take() -> None:
    state = table([["R9"], ["B9"], ["G2"]], layout=["OU12", "OU13", "OU16", "OU10"])
    result = None
    for move in ({"play": "R9"}, {"play": "B9"}, {"play": "G2"}):
        result = act(state, move)
        state = result.state
    assert result is not None and result.public["ranked"] == [0, 1]
    assert ENGINE.legal_moves(state, 0) == [{"take": "B9"}, {"take": "G2"}]
    state = act(state, {"take": "G2"}).state
    assert ENGINE.to_act(state).seats == (1,)  # type: ignore[union-attr]
    assert ENGINE.legal_moves(state, 1) == [{"take": "R9"}]  # forced: exactly one legal move
    with pytest.raises(IllegalMove, match="your own card"):
        ENGINE.check_move(state, 1, {"take": "B9"})
    with pytest.raises(IllegalMove, match="already been taken"):
        ENGINE.check_move(state, 1, {"take": "G2"})


def test_leader_rank_with_the_later_player_higher() -> None:
    state = table([["R2"], ["B7"], ["G7"], ["Y1"]], layout=["OU12", "OU13", "OU16", "OU10", "OU11"])
    state = play_moves(state, [{"play": "R2"}, {"play": "B7"}, {"play": "G7"}])
    result = act(state, {"play": "Y1"})
    assert result.public["ranked"] == [1, 2]


# --- M5: only the takers of this trick may cash in -------------------------------------------


def test_m5_no_cash_in_without_taking() -> None:
    state = table(
        [["R9"], ["B8"], ["G1"], ["R1"]],
        layout=["OU01", "OU12", "OU13", "OU16", "OU10"],
        collections=[[], [], ["Y3"], []],
    )
    state = play_moves(state, [{"play": "R9"}, {"play": "B8"}, {"play": "G1"}, {"play": "R1"}])
    with pytest.raises(IllegalMove, match="not your turn"):
        ENGINE.check_move(state, 2, {"cash_in": {"orangutan": "OU01"}})
    seen_seats = set()
    while state["trick_number"] == 1:
        seat = state["current"]
        seen_seats.add((seat, state["phase"]))
        moves = ENGINE.legal_moves(state, seat)
        assert ENGINE.legal_moves(state, 2) == [] or seat == 2
        state = act(state, moves[-1]).state
    assert all(seat != 2 for seat, _ in seen_seats)
    assert state["collections"][2] == ["Y3"]
    assert "OU01" in state["layout"]


# --- M6: end scoring, both deforestation penalties --------------------------------------------


def m6_last_trick(penalty: str) -> State:
    """Seat 0 has won OU01 (R1 under) and OU05, and must take the X4 in the last trick."""
    state = table(
        [["R10"], ["X4"], ["B9"]],
        layout=["OU12", "OU13", "OU16", "OU10"],
        deck=[],
        trick_number=TRICKS,
        deforestation_penalty=penalty,
    )
    state["won"][0] = [{"orangutan": "OU01", "under": ["R1"]}, {"orangutan": "OU05", "under": []}]
    state = play_moves(state, [{"play": "R10"}, {"play": "X4"}, {"play": "B9"}])
    assert ENGINE.legal_moves(state, 0) == [{"take": "B9"}, {"take": "X4"}]
    state = act(state, {"take": "X4"}).state
    result = act(state, {"take": "R10"})
    assert result.public["over"] is True
    assert result.public["game_end"]["game"] == 1
    return result.state


def test_m6_additional() -> None:
    state = m6_last_trick("additional")
    assert ENGINE.scores(state) == [6, 0, -1]  # 3 + 7 - 1 - 1 - 2
    assert ENGINE.to_act(state) is None
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.winners == (0,)
    assert outcome.ranking == ((0,), (1,), (2,))


def test_m6_replace() -> None:
    state = m6_last_trick("replace")
    assert ENGINE.scores(state) == [7, 0, -1]  # 3 + 7 - 1 - 2


def test_deforestation_under_an_orangutan_costs_the_same() -> None:
    state = table([["R1"], ["R2"], ["R3"]], layout=["OU12"])
    state["won"][1] = [{"orangutan": "OU01", "under": ["X2", "G4"]}]
    assert ENGINE.scores(state) == [0, 3 - 3 - 1, 0]
    state["options"]["deforestation_penalty"] = "replace"
    assert ENGINE.scores(state) == [0, 3 - 2 - 1, 0]


# --- M7: tie-break by the highest orang-utans --------------------------------------------------


def over_with(won: list[list[str]], players: int = 3) -> State:
    state = table([[] for _ in range(players)], layout=[])
    state["won"] = [[{"orangutan": ident, "under": []} for ident in ids] for ids in won]
    state["results"] = [{"game": 1, "scores": ENGINE.scores(state), "won": won}]
    state["over"] = True
    state["phase"] = "over"
    state["current"] = None
    return state


def test_m7_highest_orangutan_breaks_the_tie() -> None:
    state = over_with([["OU05", "OU06"], ["OU07", "OU03", "OU01"], ["OU02"]])
    assert ENGINE.scores(state) == [14, 14, 3]
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0,)
    assert outcome.ranking == ((0,), (1,), (2,))


def test_still_tied_is_a_shared_win_and_forfeits_go_last() -> None:
    state = over_with([["OU05"], ["OU06"], ["OU01"]])
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0, 1)
    assert outcome.ranking == ((0, 1), (2,))
    outcome = ENGINE.outcome(state, frozenset({0}))
    assert outcome is not None
    assert outcome.winners == (1,)
    assert outcome.ranking == ((1,), (2,), (0,))


def test_more_orangutans_win_on_an_equal_prefix() -> None:
    state = over_with([["OU05", "OU03"], ["OU06", "OU03"], ["OU02"]])
    state["results"][0]["scores"] = [11, 11, 3]
    state["won"][1].append({"orangutan": "OU01", "under": ["R1", "R2", "R3"]})
    state["results"][0]["won"][1].append("OU01")
    # seat 1: 7 + 4 + 3 - 3 = 11, equal to seat 0, with one more orang-utan
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.winners == (1,)


# --- M8: a mandatory take among deforestation cards ------------------------------------------


def test_m8_deforestation_only_and_forced() -> None:
    state = table([["X3"], ["X5"], ["X9"]], layout=["OU12", "OU13", "OU16", "OU10"])
    state = play_moves(state, [{"play": "X3"}, {"play": "X5"}, {"play": "X9"}])
    assert state["current"] == 2
    assert ENGINE.legal_moves(state, 2) == [{"take": "X3"}, {"take": "X5"}]
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 2, {"take": None})
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 2, {"cash_in": None})
    state = act(state, {"take": "X3"}).state
    assert ENGINE.legal_moves(state, 1) == [{"take": "X9"}]
    assert ENGINE.timeout_move(state, 1) == {"take": "X9"}
    state = act(state, {"take": "X9"}).state
    assert state["collections"] == [[], ["X9"], ["X3"]]
    assert ENGINE.scores(state) == [0, -3, -3]


# --- M9: illegal moves ------------------------------------------------------------------------


def test_m9_illegal_moves_are_refused_and_change_nothing() -> None:
    state = table(
        [["R9", "R1"], ["B8", "B1"], ["G1", "G2"]],
        layout=["OU01", "OU12", "OU13", "OU16"],
        collections=[["B3"], [], []],
    )
    frozen = copy.deepcopy(state)
    with pytest.raises(IllegalMove, match="B8 is not in your hand"):
        ENGINE.check_move(state, 0, {"play": "B8"})
    with pytest.raises(IllegalMove, match="card code"):
        ENGINE.check_move(state, 0, {"play": "Z1"})
    with pytest.raises(IllegalMove, match="not your turn"):
        ENGINE.check_move(state, 1, {"play": "B8"})
    with pytest.raises(IllegalMove, match="a play step"):
        ENGINE.check_move(state, 0, {"take": "B8"})
    for bad in (None, {}, {"play": 9}, {"play": "R9", "extra": 1}, {"card": 1}):
        with pytest.raises(IllegalMove):
            ENGINE.check_move(state, 0, bad)  # type: ignore[arg-type]
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {1: {"play": "B8"}})
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {0: {"play": "R9"}, 1: {"play": "B8"}})
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 7, {"play": "R9"})
    assert state == frozen
    state = play_moves(state, [{"play": "R9"}, {"play": "B8"}, {"play": "G1"}])
    frozen = copy.deepcopy(state)
    with pytest.raises(IllegalMove, match="your own card"):
        ENGINE.check_move(state, 0, {"take": "R9"})
    with pytest.raises(IllegalMove, match="not played"):
        ENGINE.check_move(state, 0, {"take": "G2"})
    with pytest.raises(IllegalMove, match="not your turn"):
        ENGINE.check_move(state, 1, {"take": "G1"})
    with pytest.raises(IllegalMove, match="a take step"):
        ENGINE.check_move(state, 0, {"cash_in": {"orangutan": "OU01"}})
    assert state == frozen
    state = act(state, {"take": "G1"}).state  # B3 + G1: nothing affordable (no cash-in step)
    assert state["current"] == 1 and state["phase"] == "take"
    state = table(
        [["R9"], ["B8"], ["Y1"]],
        layout=["OU01", "OU04", "OU12", "OU13"],
        collections=[["R5"], [], []],
    )
    state = play_moves(state, [{"play": "R9"}, {"play": "B8"}, {"play": "Y1"}, {"take": "B8"}])
    assert state["phase"] == "cash_in"  # R5 + B8 affords OU04 (one blue)
    frozen = copy.deepcopy(state)
    with pytest.raises(IllegalMove, match="does not meet the requirement of OU01"):
        ENGINE.check_move(state, 0, {"cash_in": {"orangutan": "OU01"}})
    with pytest.raises(IllegalMove, match="not in the layout"):
        ENGINE.check_move(state, 0, {"cash_in": {"orangutan": "OU03"}})
    with pytest.raises(IllegalMove, match="not in the layout"):
        ENGINE.check_move(state, 0, {"cash_in": {"orangutan": 4}})
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 0, {"cash_in": "OU04"})
    with pytest.raises(IllegalMove, match="unknown fields"):
        ENGINE.check_move(state, 0, {"cash_in": {"orangutan": "OU04", "x": 1}})
    with pytest.raises(IllegalMove, match="not your turn"):
        ENGINE.check_move(state, 2, {"cash_in": None})
    assert state == frozen


# --- give --------------------------------------------------------------------------------------


def cash_in_state(collection: list[str], layout: list[str]) -> State:
    """Seat 0 takes Y9 and then decides on a cash-in with ``collection`` + Y9."""
    state = table(
        [["R10"], ["Y9"], ["X1"]],
        layout=layout,
        collections=[collection, [], []],
    )
    state = play_moves(state, [{"play": "R10"}, {"play": "Y9"}, {"play": "X1"}, {"take": "Y9"}])
    assert state["phase"] == "cash_in"
    return state


def test_default_give_discards_the_lowest_required_cards() -> None:
    state = cash_in_state(["Y2", "Y7", "R4", "X3"], ["OU05", "OU12", "OU13", "OU16"])
    result = act(state, {"cash_in": {"orangutan": "OU05"}})
    assert result.public["discarded"] == ["Y2", "Y7"]
    assert result.public["under"] == ["R4", "Y9", "X3"]
    assert ENGINE.scores(result.state)[0] == 7 - 1 - 1 - 3


def test_explicit_give_and_same_score() -> None:
    state = cash_in_state(["Y2", "Y7", "R4", "X3"], ["OU05", "OU12", "OU13", "OU16"])
    default = ENGINE.scores(act(state, {"cash_in": {"orangutan": "OU05"}}).state)
    move = {"cash_in": {"orangutan": "OU05", "give": ["Y9", "Y7"]}}
    ENGINE.check_move(state, 0, move)
    result = act(state, move)
    assert result.public["discarded"] == ["Y7", "Y9"]
    assert result.public["under"] == ["R4", "Y2", "X3"]
    assert ENGINE.scores(result.state) == default


@pytest.mark.parametrize(
    ("give", "message"),
    [
        (["Y9"], "exactly"),
        (["Y9", "Y7", "R4"], "exactly"),
        (["Y9", "X3"], "exactly"),
        (["Y9", "Y9"], "twice"),
        (["Y9", "Y5"], "not in your collection"),
        ("Y9", "list"),
        ([9, 7], "list"),
    ],
)
def test_bad_give_is_refused(give: Any, message: str) -> None:
    state = cash_in_state(["Y2", "Y7", "R4", "X3"], ["OU05", "OU12", "OU13", "OU16"])
    with pytest.raises(IllegalMove, match=message):
        ENGINE.check_move(state, 0, {"cash_in": {"orangutan": "OU05", "give": give}})


def test_deforestation_never_meets_a_requirement() -> None:
    state = table(
        [["R10"], ["X9"], ["Y1"]],
        layout=["OU01", "OU02", "OU03", "OU04"],
        collections=[["X5", "X6"], [], []],
    )
    state = play_moves(state, [{"play": "R10"}, {"play": "X9"}, {"play": "Y1"}])
    result = act(state, {"take": "X9"})
    assert result.public["cash_in_open"] is False
    # cards under an orang-utan do not count for the next one
    state = cash_in_state(["Y2", "G3"], ["OU01", "OU02", "OU12", "OU13"])
    state = act(state, {"cash_in": {"orangutan": "OU01"}}).state
    assert state["won"][0] == [{"orangutan": "OU01", "under": ["Y9", "G3"]}]
    assert state["collections"][0] == []


# --- a whole game, two games -------------------------------------------------------------------


def test_ten_tricks_per_game_and_refills() -> None:
    state = ENGINE.initial_state(4, {}, make_rng())
    tricks = 0
    while (to_act := ENGINE.to_act(state)) is not None:
        seat = to_act.seats[0]
        result = ENGINE.apply(state, {seat: ENGINE.timeout_move(state, seat)})
        if "trick_end" in result.public:
            tricks += 1
            assert len(result.state["layout"]) == 5 or not result.state["deck"]
        state = result.state
    assert tricks == TRICKS
    assert state["hands"] == [[], [], [], []]
    assert len(ENGINE.view(state, None)["history"]) == TRICKS
    assert ENGINE.outcome(state) is not None


def test_two_games_add_totals_and_redeal() -> None:
    state = ENGINE.initial_state(3, {"games": 2}, make_rng())
    coming = copy.deepcopy(state["future"][0])
    game_one: list[int] | None = None
    while state["game_number"] == 1:
        seat = state["current"]
        result = ENGINE.apply(state, {seat: ENGINE.timeout_move(state, seat)})
        state = result.state
        if "game_end" in result.public:
            game_one = result.public["game_end"]["scores"]
            assert result.public["over"] is False
            assert result.public["next_game"] == {
                "game": 2,
                "start_draw": coming["start"],
                "layout": coming["layout"],
            }
            assert result.private == {s: {"hand": coming["hands"][s]} for s in range(3)}
    assert game_one is not None
    assert state["hands"] == coming["hands"]
    assert state["leader"] == state["current"] == coming["start"]["seat"]
    assert state["collections"] == [[], [], []] and state["won"] == [[], [], []]
    assert state["future"] == []
    view = ENGINE.view(state, 0)
    assert view["game"] == 2 and view["games"] == 2
    assert view["scores"] == game_one
    assert view["game_results"] == [{"game": 1, "scores": game_one}]
    state = finish_by_timeout(state)
    game_two = state["results"][1]["scores"]
    assert ENGINE.scores(state) == [a + b for a, b in zip(game_one, game_two, strict=True)]
    assert [entry["game"] for entry in ENGINE.view(state, None)["history"]] == [1] * 10 + [2] * 10


# --- views and hidden information --------------------------------------------------------------


def strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def test_views_hide_hands_undealt_and_deck_order() -> None:
    state = ENGINE.initial_state(3, {"games": 2}, make_rng())
    state = play_moves(state, [{"play": ENGINE.timeout_move(state, state["current"])["play"]}])
    for seat in (None, 0, 1, 2):
        view = ENGINE.view(state, seat)
        json.dumps(view)
        for key in ("hands", "undealt", "deck", "future"):
            assert key not in view
        shown = strings(
            {k: v for k, v in view.items() if k not in ("start_draw", "placeholder_note")}
        )
        hidden = set(state["undealt"]) | {
            card for s in range(3) if s != seat for card in state["hands"][s]
        }
        assert not shown & hidden
        assert not shown & set(state["deck"])
        assert view["orangutans_left"] == len(state["deck"])
        assert view["hand_counts"] == [len(h) for h in state["hands"]]
        if seat is None:
            assert "hand" not in view
        else:
            assert view["hand"] == sort_cards(state["hands"][seat])
            assert [{"play": c} for c in view["hand"]] == ENGINE.legal_moves(state, seat) or (
                seat != state["current"]
            )
    view = ENGINE.view(state, 0)
    assert view["layout"][0] == {
        "id": state["layout"][0],
        "name": ORANGUTANS[state["layout"][0]]["name"],
        "points": ORANGUTANS[state["layout"][0]]["points"],
        "requires": ORANGUTANS[state["layout"][0]]["requires"],
    }
    assert view["trick"] == [dict(e) for e in state["trick"]]
    assert view["history_mode"] == "full"


def test_shuffle_hidden_redraws_other_hands_and_keeps_views() -> None:
    state = ENGINE.initial_state(4, {"games": 2}, make_rng())
    shuffler = make_rng("shuffle")
    for seat in (None, 0, 1, 2, 3):
        hidden = ENGINE.shuffle_hidden(state, seat, shuffler)
        assert ENGINE.view(hidden, seat) == ENGINE.view(state, seat)
        if seat is not None:
            assert hidden["hands"][seat] == state["hands"][seat]
        assert hidden["hands"] != state["hands"]
        assert hidden["future"] != state["future"]
        pool = sorted([c for hand in hidden["hands"] for c in hand] + hidden["undealt"])
        assert pool == sorted(CARDS)


# --- options and validation --------------------------------------------------------------------


def test_defaults_and_schema() -> None:
    assert ENGINE.validate_options({}, 3) == {
        "allow_five": False,
        "deforestation_penalty": "additional",
        "games": 1,
    }
    schema = ENGINE.options_schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert all("default" in prop for prop in schema["properties"].values())
    assert "5" in schema["properties"]["allow_five"]["description"]
    assert ENGINE.min_players == 3 and ENGINE.max_players == 5
    assert ENGINE.slug == "old-men-of-the-forest"
    assert ENGINE.name == "Old Men of the Forest"
    assert ENGINE.history_mode({}) == "full"


def test_allow_five() -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options({}, 5)
    assert list(caught.value.errors) == ["seats"]
    assert "allow_five" in caught.value.errors["seats"][0]
    with pytest.raises(InvalidOptions):
        ENGINE.validate_options({"allow_five": False}, 5)
    assert ENGINE.validate_options({"allow_five": True}, 5)["allow_five"] is True
    assert ENGINE.validate_options({"allow_five": True}, 3)["allow_five"] is True
    state = ENGINE.initial_state(5, {"allow_five": True}, make_rng())
    assert state["undealt"] == [] and len(state["layout"]) == 6


@pytest.mark.parametrize("players", [0, 1, 2, 6, 7])
def test_bad_player_counts(players: int) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options({"allow_five": True}, players)
    assert list(caught.value.errors) == ["seats"]


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"allow_five": "yes"}, "options.allow_five"),
        ({"deforestation_penalty": "double"}, "options.deforestation_penalty"),
        ({"games": 0}, "options.games"),
        ({"games": 3}, "options.games"),
        ({"games": True}, "options.games"),
        ({"history": "full"}, "options.history"),
    ],
)
def test_invalid_options(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options(options, 4)
    assert list(caught.value.errors) == [field]


def test_games_accepts_integral_floats() -> None:
    assert ENGINE.validate_options({"games": 2.0}, 3)["games"] == 2


# --- timeout moves, echoes ---------------------------------------------------------------------


def test_timeout_moves() -> None:
    state = table(
        [["R5", "X5", "B2", "G2"], ["Y8", "B1"], ["X9", "Y9"]],
        layout=["OU01", "OU05", "OU12", "OU13"],
        collections=[["Y3"], [], []],
    )
    assert ENGINE.timeout_move(state, 0) == {"play": "B2"}
    state = play_moves(state, [{"play": "R5"}, {"play": "Y8"}, {"play": "X9"}])
    assert state["current"] == 2
    assert ENGINE.timeout_move(state, 2) == {"take": "Y8"}  # coloured before deforestation
    state = act(state, {"take": "R5"}).state
    assert state["current"] == 1 and ENGINE.timeout_move(state, 1) == {"take": "X9"}
    state = table(
        [["R10"], ["Y9"], ["X1"]],
        layout=["OU01", "OU05", "OU12", "OU13"],
        collections=[["Y3"], [], []],
    )
    state = play_moves(state, [{"play": "R10"}, {"play": "Y9"}, {"play": "X1"}, {"take": "Y9"}])
    assert ENGINE.timeout_move(state, 0) == {"cash_in": {"orangutan": "OU05"}}
    with pytest.raises(IllegalMove):
        ENGINE.timeout_move(state, 1)
    assert ENGINE.echoes(state, {"cash_in": None}) is True


# --- seeded random playouts --------------------------------------------------------------------

SETUPS: list[tuple[int, dict[str, Any]]] = [
    (players, {"allow_five": players == 5, "deforestation_penalty": penalty, "games": games})
    for players in (3, 4, 5)
    for penalty in ("additional", "replace")
    for games in (1, 2)
]
PLAYOUTS = scaled(60)  # FACEDOWN_TEST_SCALE plays more (tests/scale.py)
FULL_VIEW_CHECKS = len(SETUPS)  # the first playout of every setup checks every viewer each step
MAX_STEPS = 2 * TRICKS * (5 + 4) + 10


def deal_rng(number: int, players: int) -> DealRng:
    seed = random.Random(number).randbytes(32)
    clients = [f"seat{s}-{number}" if s % 2 == 0 else None for s in range(players)]
    return DealRng(seed, f"00000000-0000-0000-0000-{number:012d}", clients)


def roundtrip(value: Any) -> None:
    assert json.loads(json.dumps(value)) == value


@pytest.mark.parametrize("chunk", range(3))
def test_random_playouts(chunk: int) -> None:
    shuffles = changed = 0
    single_winner = False
    for number in range(chunk, PLAYOUTS, 3):
        chooser = random.Random(number)
        players, options = SETUPS[number % len(SETUPS)]
        state = ENGINE.initial_state(players, options, deal_rng(number, players))
        assert state == ENGINE.initial_state(players, options, deal_rng(number, players))
        shuffler = deal_rng(number + 10**6, players)
        steps = 0
        while True:
            roundtrip(state)
            assert state["step"] == steps + 1
            viewers: list[int | None] = [None, *range(players)]
            if number >= FULL_VIEW_CHECKS:  # later playouts check one viewer per step, in turn
                viewers = [viewers[steps % len(viewers)]]
            for seat in viewers:
                view = ENGINE.view(state, seat)
                roundtrip(view)
                hidden = ENGINE.shuffle_hidden(state, seat, shuffler)
                assert ENGINE.view(hidden, seat) == view
                shuffles += 1
                changed += hidden != state
                assert view["scores"] == ENGINE.scores(state)
            to_act = ENGINE.to_act(state)
            if to_act is None:
                break
            assert ENGINE.outcome(state) is None
            assert len(to_act.seats) == 1 and not to_act.simultaneous
            (acting,) = to_act.seats
            moves: dict[int, Any] = {}
            for seat in range(players):
                legal = ENGINE.legal_moves(state, seat)
                roundtrip(legal)
                if seat != acting:
                    assert legal == []
                    continue
                assert legal
                for move in legal:
                    ENGINE.check_move(state, seat, move)
                    assert ENGINE.echoes(state, move) is True
                assert ENGINE.timeout_move(state, seat) in legal
                moves[seat] = chooser.choice(legal)
            before = json.loads(json.dumps(state))
            result = ENGINE.apply(state, moves)
            assert state == before, "apply mutated its input"
            roundtrip(result.public)
            roundtrip({str(s): data for s, data in result.private.items()})
            assert result.public["scores"] == ENGINE.scores(result.state)
            state = result.state
            steps += 1
            assert steps <= MAX_STEPS
        assert len(state["results"]) == options["games"]
        assert len(state["history"]) == TRICKS * options["games"]
        for seat in range(players):
            assert ENGINE.legal_moves(state, seat) == []
            with pytest.raises(IllegalMove):
                ENGINE.check_move(state, seat, {"play": "R1"})
        for forfeited in (frozenset[int](), frozenset(s for s in range(players) if s % 2)):
            outcome = ENGINE.outcome(state, forfeited)
            assert outcome is not None
            assert list(outcome.scores) == ENGINE.scores(state)
            assert set(outcome.winners) <= set(range(players)) - forfeited
            assert outcome.winners
            flat = [s for group in outcome.ranking for s in group]
            assert sorted(flat) == list(range(players))
            assert outcome.ranking[0] == tuple(sorted(outcome.winners))
            if forfeited:
                assert set(outcome.ranking[-1]) == forfeited
            single_winner = single_winner or len(outcome.winners) == 1
    assert changed > shuffles // 2
    assert single_winner
