"""Xato: the worked examples X1-X11 of the rules, every option, hidden information, views,
validation, and random playouts checking the protocol's invariants."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from cardgames.engines.protocol import IllegalMove, InvalidOptions, Move, Resolution, State, ToAct
from cardgames.engines.rng import DealRng
from cardgames.engines.xato import (
    ENGINE,
    HAND_SIZES,
    PACK_52,
    PACK_54,
    hunt_position,
    pack,
    target_of,
)
from tests.scale import scaled

SEED = bytes(range(32))
MATCH_ID = "00000000-0000-0000-0000-000000000007"
A, B, C, D = 0, 1, 2, 3


#: The variant most rule tests here are written for: the printed base rules' memory parts off
#: (every call resolves at once, full history). The defaults follow the printed rules
#: (``test_defaults_and_validation``); a test of those parts asks for them by name.
CONVENIENT: dict[str, Any] = {"strict_memory": False, "history": "full"}


def make_rng(players: int = 4) -> DealRng:
    return DealRng(SEED, MATCH_ID, ["alice"] + [None] * (players - 1))


def position(
    life: Mapping[int, Sequence[str]] | None = None,
    hand: Mapping[int, Sequence[str]] | None = None,
    *,
    players: int = 4,
    hand_cards: Mapping[int, int] | None = None,
    **kwargs: Any,
) -> State:
    """A hunt position: a seat named in ``life`` holds exactly those life cards, the others
    ``life_cards``; hands hold the named cards filled up from the rest of the pack (in pack
    order) to ``hand_cards`` (default: the starting hand); cards left over lie at the bottom
    of the discard pile."""
    options = {**CONVENIENT, **kwargs.pop("options", {})}
    k: int = ENGINE.validate_options(options, players)["life_cards"]
    start_hand = HAND_SIZES[players] - k
    life = {seat: list(cards) for seat, cards in (life or {}).items()}
    hand = {seat: list(cards) for seat, cards in (hand or {}).items()}
    life_counts = {seat: len(life[seat]) if seat in life else k for seat in range(players)}
    table = [*kwargs.get("discard", ()), *kwargs.get("exposed", ())]
    named = {card for cards in (*life.values(), *hand.values(), table) for card in cards}
    spare = [card for card in pack(players) if card not in named]
    hands: list[list[str]] = []
    lives: list[list[str]] = []
    for seat in range(players):
        own_life = life.get(seat, [])
        while len(own_life) < life_counts[seat]:
            own_life.append(spare.pop(0))
        own_hand = hand.get(seat, [])
        wanted = (hand_cards or {}).get(seat, start_hand)
        while len(own_hand) < wanted:
            own_hand.append(spare.pop(0))
        hands.append(own_hand)
        lives.append(own_life)
    return hunt_position(hands, lives, options=options, **kwargs)


def call(state: State, card: str) -> Resolution:
    return ENGINE.apply(state, {state["current"]: {"call": card}})


def act(state: State, seat: int, move: Move) -> Resolution:
    return ENGINE.apply(state, {seat: move})


def where(state: State, card: str) -> str:
    for seat in range(state["players"]):
        if card in state["hands"][seat]:
            return f"hand{seat}"
        if card in state["life"][seat]:
            return f"life{seat}"
    if card in state["exposed"]:
        return "exposed"
    return "discard" if card in state["discard"] else "nowhere"


def draft_all(state: State) -> State:
    """Play the draft with the timeout move (the lowest card left)."""
    while state["phase"] == "draft":
        seat = state["current"]
        state = act(state, seat, ENGINE.timeout_move(state, seat)).state
    return state


def choose_life(state: State, picks: Mapping[int, Sequence[str]] | None = None) -> Resolution:
    moves: dict[int, Move] = {}
    for seat in range(state["players"]):
        if picks and seat in picks:
            moves[seat] = {"life": list(picks[seat])}
        else:
            moves[seat] = ENGINE.timeout_move(state, seat)
    return ENGINE.apply(state, moves)


def fresh(players: int = 4, **options: Any) -> State:
    return ENGINE.initial_state(players, {**CONVENIENT, **options}, make_rng(players))


# --- components, setup -------------------------------------------------------------------------


def test_pack_and_codes() -> None:
    assert len(PACK_52) == 52 and len(set(PACK_52)) == 52
    assert PACK_54[-2:] == ("RJ", "BJ")
    for code in ("QS", "TD", "7H", "AC", "KC"):
        assert code in PACK_52
    assert pack(3) == pack(6) == PACK_54
    assert pack(4) == pack(5) == PACK_52


@pytest.mark.parametrize(
    ("players", "size", "deck"), [(3, 18, 54), (4, 13, 52), (5, 10, 52), (6, 9, 54)]
)
def test_hand_sizes_and_draft(players: int, size: int, deck: int) -> None:
    state = fresh(players)
    assert state["phase"] == "draft"
    assert len(state["pool"]) == deck
    view = ENGINE.view(state, None)
    assert view["pool"] == list(pack(players))
    assert view["hand_size"] == size
    start = state["current"]
    assert start == make_rng(players).randbelow(players)  # the one draw of the deal stream
    order = []
    while state["phase"] == "draft":
        order.append(state["current"])
        assert ENGINE.to_act(state) is not None
        assert ENGINE.to_act(state) == ToAct((state["current"],), simultaneous=False)
        state = act(state, state["current"], ENGINE.timeout_move(state, state["current"])).state
    assert order[: players + 1] == [(start + i) % players for i in range(players + 1)]
    assert [len(hand) for hand in state["hands"]] == [size] * players
    assert state["pool"] == []
    assert state["phase"] == "life"
    drawn = sorted(card for hand in state["hands"] for card in hand) + sorted(state["discard"])
    assert sorted(drawn) == sorted(pack(players))
    assert len(state["discard"]) == (2 if players == 5 else 0)


def test_x8_five_players_untaken_cards_start_the_discard_pile() -> None:
    state = fresh(5)
    while state["phase"] == "draft":
        seat = state["current"]
        last = len(state["pool"]) == 3
        resolution = act(state, seat, {"take": state["pool"][0]})
        state = resolution.state
    assert last
    public = resolution.public
    assert public["discard_start"] == state["discard"]
    untaken = list(state["discard"])
    assert untaken == sorted(untaken, key=PACK_52.index) and len(untaken) == 2
    for seat in range(5):
        assert len(state["hands"][seat]) == 10
        view = ENGINE.view(state, seat)
        assert view["discard_top"] == untaken[1]
        assert view["discard_count"] == 2
    state = choose_life(state).state
    for card in untaken:
        state["calls"] = [0] * 5
        before = state
        resolution = call(state, card)
        assert resolution.public["outcome"] == "blank"
        assert resolution.public["points"] == -6
        assert resolution.state["discard"] == before["discard"]
        state = resolution.state


def test_x9_three_players_jokers() -> None:
    state = fresh(3)
    assert len(state["pool"]) == 54
    assert "RJ" in state["pool"] and "BJ" in state["pool"]
    # Seat 0's first call targets its right neighbour, seat 2.
    state = position({}, {2: ["RJ"]}, players=3)
    assert target_of(state, 0, 1) == 2
    assert len(state["hands"][0]) + len(state["life"][0]) == 18
    resolution = call(state, "RJ")
    assert resolution.public["outcome"] == "hit"
    assert resolution.public["points"] == 5
    assert resolution.state["discard"][-1] == "RJ"
    assert ENGINE.scores(resolution.state) == [5, 0, 0]
    # A joker in a life area is a life card like any other.
    state = position({0: ["BJ", "AS", "2S"]}, {}, players=3, current=1)
    assert call(state, "BJ").public["outcome"] == "kill"


def test_jokers_are_not_in_the_four_and_five_player_pack() -> None:
    state = position({}, {})
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 0, {"call": "RJ"})
    assert {"call": "RJ"} not in ENGINE.legal_moves(state, 0)
    assert {"call": "RJ"} in ENGINE.legal_moves(position({}, {}, players=6), 0)


# --- targets -------------------------------------------------------------------------------------


def test_targets_while_all_are_active() -> None:
    state = position({}, {})
    expected = {
        1: {A: D, B: A, C: B, D: C},
        2: {A: C, B: D, C: A, D: B},
        3: {A: B, B: C, C: D, D: A},
        4: {A: D, B: A, C: B, D: C},
    }
    for number, targets in expected.items():
        for caller, target in targets.items():
            assert target_of(state, caller, number) == target


def test_target_is_shown_in_the_view() -> None:
    state = position({}, {}, current=B, calls=[1, 1, 0, 0])
    assert ENGINE.view(state, None)["target"] == D  # B's 2nd call


# --- worked examples X1-X7 -----------------------------------------------------------------------


def test_x1_hit() -> None:
    state = position({}, {D: ["5H"]})
    resolution = call(state, "5H")
    assert resolution.public["outcome"] == "hit"
    assert resolution.public["target"] == D
    assert resolution.public["holder"] == D
    assert ENGINE.scores(resolution.state) == [5, 0, 0, 0]
    assert ENGINE.view(resolution.state, None)["discard_top"] == "5H"
    assert "5H" not in resolution.state["hands"][D]
    assert resolution.state["current"] == B


def test_x2_miss() -> None:
    state = position({}, {C: ["9C"]}, current=B, calls=[1, 0, 0, 0])
    resolution = call(state, "9C")
    assert resolution.public["target"] == A
    assert resolution.public["outcome"] == "miss"
    assert ENGINE.scores(resolution.state) == [0, -3, 0, 0]
    assert where(resolution.state, "9C") == "discard"


def test_miss_on_the_callers_own_hand_card() -> None:
    state = position({}, {A: ["9C"]})
    resolution = call(state, "9C")
    assert resolution.public["outcome"] == "miss"
    assert resolution.public["points"] == -3
    assert "9C" not in resolution.state["hands"][A]


def test_x3_critical() -> None:
    state = position({A: ["KD", "2S", "3S"]}, {}, current=C, calls=[1, 1, 0, 0])
    resolution = call(state, "KD")
    assert resolution.public["target"] == B
    assert resolution.public["outcome"] == "critical"
    assert resolution.public["points"] == 3
    assert ENGINE.scores(resolution.state) == [0, 0, 3, 0]
    assert ENGINE.view(resolution.state, None)["life_count"] == [2, 3, 3, 3]


def test_critical_finishing_scores_six() -> None:
    state = position({A: ["KD"]}, {}, current=C, hand_cards={A: 2})
    resolution = call(state, "KD")
    assert resolution.public["outcome"] == "critical"
    assert resolution.public["finishing"] is True
    assert resolution.public["points"] == 6


def test_x4_kill() -> None:
    state = position({C: ["QC", "2D", "3D"]}, {}, current=D, calls=[1, 1, 1, 0])
    resolution = call(state, "QC")
    assert resolution.public["target"] == C
    assert resolution.public["outcome"] == "kill"
    assert resolution.public["finishing"] is False
    assert ENGINE.scores(resolution.state) == [0, 0, 0, 10]
    assert resolution.state["current"] == A


def test_x5_kill_finishing_and_sacrifice_offer() -> None:
    c_life = ["TD", "9D", "JD"]
    c_hand = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "QD", "KD"]
    state = position({C: c_life}, {C: c_hand})
    state = call(state, "TD").state  # A's 1st call (target D): C's life card, critical
    state = call(state, "9D").state  # B's 1st call (target A): C's life card, critical
    state = call(state, "AD").state  # C's 1st call: its own hand card, miss
    state = call(state, "2D").state  # D's 1st call (target C): C's hand card, hit
    assert ENGINE.scores(state) == [3, 3, -3, 5]
    assert len(state["hands"][C]) == 8 and state["life"][C] == ["JD"]
    assert state["current"] == A
    resolution = call(state, "JD")  # A's 2nd call: target C
    assert resolution.public["target"] == C
    assert resolution.public["outcome"] == "kill"
    assert resolution.public["finishing"] is True
    assert resolution.public["points"] == 20
    assert resolution.public["sacrifice_step"] == C
    state = resolution.state
    assert ENGINE.scores(state) == [23, 3, -3, 5]
    assert state["phase"] == "sacrifice"
    to_act = ENGINE.to_act(state)
    assert to_act is not None and to_act.seats == (C,) and not to_act.simultaneous
    legal = ENGINE.legal_moves(state, C)
    assert legal[-1] == {"sacrifice": None}
    assert sorted(m["sacrifice"] for m in legal[:-1]) == sorted(state["hands"][C])
    assert ENGINE.view(state, None)["active"] == [A, B, C, D]
    assert ENGINE.view(state, None)["phase"] == {"kind": "sacrifice", "seat": C}
    # C sacrifices: a new single life card, face down; the turn passes on after A.
    resolution = act(state, C, {"sacrifice": "KD"})
    assert resolution.public["sacrificed"] is True
    assert "KD" not in json.dumps(resolution.public)
    state = resolution.state
    assert state["life"][C] == ["KD"] and "KD" not in state["hands"][C]
    assert state["current"] == B
    assert ENGINE.view(state, C)["life_count"][C] == 1
    assert "KD" not in ENGINE.view(state, C)["hand"]


def test_x5b_no_sacrifice_exposes_the_hand_and_c_is_skipped() -> None:
    c_hand = ["AD", "2D", "3D", "4D", "5D"]
    state = position({C: ["JD"]}, {C: c_hand}, hand_cards={C: 5}, calls=[1, 1, 1, 1])
    resolution = call(state, "JD")
    assert resolution.public["outcome"] == "kill"
    assert resolution.public["points"] == 20
    assert resolution.public["sacrifice_step"] is None
    assert resolution.public["finished"] == {"seat": C, "exposed": c_hand}
    state = resolution.state
    assert state["phase"] == "hunt"
    assert state["hands"][C] == []
    view = ENGINE.view(state, None)
    assert view["exposed"] == c_hand
    assert view["finished"] == [C] and view["active"] == [A, B, D]
    assert state["current"] == B
    state = call(state, "2D").state  # B calls an exposed card: a blank shot
    assert ENGINE.scores(state)[B] == -6
    assert state["current"] == D  # C is skipped
    state = call(state, "KS").state
    assert state["current"] == A


def test_x6_suicide() -> None:
    state = position({B: ["7H", "8H", "9H"]}, {}, current=B)
    resolution = call(state, "8H")
    assert resolution.public["outcome"] == "suicide"
    assert resolution.public["points"] == -20
    assert ENGINE.view(resolution.state, None)["life_count"][B] == 2


def test_x6b_suicide_finishing_may_sacrifice() -> None:
    state = position({B: ["7H"]}, {}, current=B)
    resolution = call(state, "7H")
    assert resolution.public["outcome"] == "suicide"
    assert resolution.public["finishing"] is True
    assert resolution.public["points"] == -40
    assert resolution.public["sacrifice_step"] == B
    state = resolution.state
    resolution = act(state, B, {"sacrifice": None})
    public = resolution.public
    assert (public["kind"], public["seat"], public["sacrificed"]) == ("sacrifice", B, False)
    assert set(public) == {
        "step", "deal", "kind", "seat", "sacrificed", "finished", "scores", "phase", "deal_over",
        "over",
    }  # fmt: skip
    state = resolution.state
    assert state["status"][B] == "out"
    assert ENGINE.view(state, None)["exposed"] == sorted(
        resolution.public["finished"]["exposed"], key=PACK_52.index
    )
    assert state["current"] == C


def test_x7_blank_shot_nothing_moves() -> None:
    state = position({}, {}, current=D, discard=["5H"], hand_cards={D: 9})
    assert where(state, "5H") == "discard"
    resolution = call(state, "5H")
    assert resolution.public["outcome"] == "blank"
    assert resolution.public["holder"] is None
    assert ENGINE.scores(resolution.state) == [0, 0, 0, -6]
    for key in ("hands", "life", "discard", "exposed"):
        assert resolution.state[key] == state[key]


# --- X10: a totally finished player --------------------------------------------------------------


def test_x10_turn_order_and_targets_skip_a_finished_player() -> None:
    state = position({C: []}, {}, hand_cards={C: 0}, out=[C], calls=[2, 2, 2, 2])
    seen: list[tuple[int, int]] = []
    for _ in range(9):
        caller = state["current"]
        target = ENGINE.view(state, None)["target"]
        seen.append((caller, target))
        state = call(state, "KC" if caller != D else "KS").state  # blank shots / misses
    callers = [caller for caller, _ in seen]
    assert callers == [A, B, D] * 3
    # 3rd, 4th, 5th calls: offsets 1, 2, 1 among the 3 active players.
    assert seen[0] == (A, D) and seen[3] == (A, B) and seen[6] == (A, D)
    assert seen[1] == (B, A) and seen[4] == (B, D)
    assert seen[2] == (D, B) and seen[5] == (D, A)


# --- X11: errors ---------------------------------------------------------------------------------


def test_x11_clear_errors_and_nothing_changes() -> None:
    state = position({}, {})
    frozen = json.dumps(state, sort_keys=True)
    for move in ({"call": "ZZ"}, {"call": "10H"}, {"call": 5}, {"take": "QS"}, {"call": "qs"}, {}):
        with pytest.raises(IllegalMove):
            ENGINE.check_move(state, A, move)
        with pytest.raises(IllegalMove):
            ENGINE.apply(state, {A: move})
    with pytest.raises(IllegalMove, match="not to act"):
        ENGINE.check_move(state, B, {"call": "QS"})
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {B: {"call": "QS"}})
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {A: {"call": "QS"}, B: {"call": "QS"}})
    assert json.dumps(state, sort_keys=True) == frozen
    life_state = draft_all(fresh())
    frozen = json.dumps(life_state, sort_keys=True)
    own = life_state["hands"][A]
    other = life_state["hands"][B]
    bad = [
        {"life": own[:2]},  # too few
        {"life": own[:4]},  # too many
        {"life": [own[0], own[0], own[1]]},  # not distinct
        {"life": [own[0], own[1], other[0]]},  # not in hand
        {"life": [own[0], own[1], "XX"]},
        {"life": "2C"},
        {"life": {"choose": 3, "from": own}},  # the template itself
    ]
    for move in bad:
        with pytest.raises(IllegalMove):
            ENGINE.check_move(life_state, A, move)
        moves = {seat: ENGINE.timeout_move(life_state, seat) for seat in range(4)}
        moves[A] = move
        with pytest.raises(IllegalMove):
            ENGINE.apply(life_state, moves)
    with pytest.raises(IllegalMove, match="missing"):
        ENGINE.apply(life_state, {A: {"life": own[:3]}})
    assert json.dumps(life_state, sort_keys=True) == frozen
    draft = fresh()
    first = draft["current"]
    with pytest.raises(IllegalMove):
        ENGINE.check_move(draft, (first + 1) % 4, {"take": "QS"})
    taken = act(draft, first, {"take": "QS"}).state
    with pytest.raises(IllegalMove, match="no longer on the table"):
        ENGINE.check_move(taken, taken["current"], {"take": "QS"})


def test_error_messages_never_name_hidden_cards() -> None:
    state = draft_all(fresh())
    hidden = state["hands"][B]
    for card in hidden:
        with pytest.raises(IllegalMove) as caught:
            ENGINE.check_move(state, A, {"life": [card, *state["hands"][A][:2]]})
        assert str(caught.value) == f"{card} is not one of your cards"


# --- the life step and hidden life cards --------------------------------------------------------


def test_life_step_template_and_resolution() -> None:
    state = draft_all(fresh())
    to_act = ENGINE.to_act(state)
    assert to_act is not None and to_act.simultaneous and to_act.seats == (0, 1, 2, 3)
    for seat in range(4):
        legal = ENGINE.legal_moves(state, seat)
        assert legal == [
            {"life": {"choose": 3, "from": sorted(state["hands"][seat], key=PACK_52.index)}}
        ]
    picks = {seat: list(reversed(state["hands"][seat][-3:])) for seat in range(4)}  # any order
    resolution = choose_life(state, picks)
    public = resolution.public
    assert public["kind"] == "life"
    assert public["life_counts"] == [3, 3, 3, 3]
    assert resolution.private == {}
    text = json.dumps(public)
    for seat in range(4):
        for card in picks[seat]:
            assert card not in text
    after = resolution.state
    assert after["phase"] == "hunt"
    assert after["current"] == after["starts"][0]
    for seat in range(4):
        assert sorted(after["life"][seat]) == sorted(picks[seat])
        assert len(after["hands"][seat]) == 10


@pytest.mark.parametrize("history", ["full", "table_only"])
def test_life_cards_never_in_any_view(history: str) -> None:
    state = choose_life(draft_all(fresh(history=history))).state
    for _ in range(6):
        for seat in [None, 0, 1, 2, 3]:
            view = ENGINE.view(state, seat)
            assert "life" not in view
            assert view["life_count"] == [len(cards) for cards in state["life"]]
            if seat is not None:
                assert not set(view["hand"]) & set(state["life"][seat])
            if history == "table_only":
                text = json.dumps(view)
                for cards in state["life"]:
                    for card in cards:
                        assert f'"{card}"' not in text
        state = call(state, ENGINE.timeout_move(state, state["current"])["call"]).state


def test_echoes() -> None:
    state = draft_all(fresh())
    assert ENGINE.echoes(state, {"life": state["hands"][0][:3]}) is False
    assert ENGINE.echoes(state, {"sacrifice": "9H"}) is False
    assert ENGINE.echoes(state, {"sacrifice": None}) is False
    assert ENGINE.echoes(state, {"take": "9H"}) is True
    assert ENGINE.echoes(state, {"call": "9H"}) is True
    assert ENGINE.echoes(state, {"claim": True}) is True


# --- strict_memory: the claim step --------------------------------------------------------------


def test_strict_memory_claim_step_on_a_life_card() -> None:
    state = position({D: ["QC", "2C", "3C"]}, {}, options={"strict_memory": True})
    resolution = call(state, "QC")  # A's 1st call: target D
    public = resolution.public
    assert public["claim_step"] is True
    assert "outcome" not in public and "holder" not in public
    state = resolution.state
    assert state["phase"] == "claim"
    to_act = ENGINE.to_act(state)
    assert to_act is not None and to_act.simultaneous and to_act.seats == (A, B, C, D)
    assert ENGINE.legal_moves(state, B) == [{"claim": False}, {"claim": True}]
    view = ENGINE.view(state, None)
    assert view["pending"] == {"caller": A, "card": "QC", "target": D}
    assert view["target"] == D
    assert ENGINE.timeout_move(state, D) == {"claim": False}
    # D (the owner) forgets to claim, B claims wrongly, C claims correctly "no".
    resolution = ENGINE.apply(
        state, {A: {"claim": False}, B: {"claim": True}, C: {"claim": False}, D: {"claim": False}}
    )
    public = resolution.public
    assert public["kind"] == "claim"
    assert public["claims"] == [False, True, False, False]
    assert public["penalties"] == [0, -10, 0, -10]
    assert public["outcome"] == "kill"
    assert public["points"] == 10
    assert ENGINE.scores(resolution.state) == [10, -10, 0, -10]
    assert resolution.state["phase"] == "hunt" and resolution.state["current"] == B


def test_strict_memory_owner_claiming_is_free() -> None:
    state = position({C: ["QC", "2C", "3C"]}, {}, options={"strict_memory": True})
    state = call(state, "QC").state
    moves = {seat: {"claim": seat == C} for seat in range(4)}
    resolution = ENGINE.apply(state, moves)
    assert resolution.public["penalties"] == [0, 0, 0, 0]
    assert resolution.public["outcome"] == "critical"
    assert ENGINE.scores(resolution.state) == [3, 0, 0, 0]


def test_strict_memory_blank_shot_opens_a_claim_step_and_hand_cards_do_not() -> None:
    state = position(
        {}, {D: ["5H"]}, discard=["9S"], hand_cards={C: 9}, options={"strict_memory": True}
    )
    assert call(state, "5H").public["outcome"] == "hit"  # in a hand: resolved at once
    resolution = call(state, "9S")
    assert resolution.public["claim_step"] is True
    resolution = ENGINE.apply(resolution.state, {seat: {"claim": seat == B} for seat in range(4)})
    assert resolution.public["outcome"] == "blank"
    assert resolution.public["penalties"] == [0, -10, 0, 0]
    assert ENGINE.scores(resolution.state) == [-6, -10, 0, 0]


def test_strict_memory_claim_only_for_active_players() -> None:
    state = position({C: []}, {}, hand_cards={C: 0}, out=[C], options={"strict_memory": True})
    state = call(state, state["life"][D][0]).state
    to_act = ENGINE.to_act(state)
    assert to_act is not None and to_act.seats == (A, B, D)
    assert ENGINE.legal_moves(state, C) == []


# --- sacrifice ------------------------------------------------------------------------------------


def test_sacrifice_only_once_per_game() -> None:
    # C's 2nd call: target A; 7H is B's last life card: a critical.
    state = position({B: ["7H"]}, {}, current=C, calls=[0, 0, 1, 0], sacrificed=[B])
    resolution = call(state, "7H")
    assert resolution.public["finishing"] is True
    assert resolution.public["sacrifice_step"] is None
    assert resolution.public["finished"]["seat"] == B
    assert resolution.state["status"][B] == "out"


def test_sacrifice_then_that_card_called_totally_finishes() -> None:
    state = position({C: ["JD"]}, {}, calls=[1, 0, 0, 0])
    state = call(state, "JD").state
    state = act(state, C, {"sacrifice": "TD"}).state
    assert state["sacrificed"][C] is True
    # B's 1st call targets A; TD is C's (new) last life card: a critical, finishing.
    resolution = call(state, "TD")
    assert resolution.public["outcome"] == "critical" and resolution.public["points"] == 6
    assert resolution.public["sacrifice_step"] is None
    assert resolution.state["status"][C] == "out"


def test_sacrifice_needs_more_than_half_of_the_starting_hand() -> None:
    # Starting hand 10: 6 cards may sacrifice, 5 may not.
    for cards, allowed in ((6, True), (5, False)):
        state = position({C: ["JD"]}, {}, hand_cards={C: cards}, calls=[1, 0, 0, 0])
        resolution = call(state, "JD")
        assert (resolution.public["sacrifice_step"] == C) is allowed


def test_sacrifice_errors() -> None:
    state = call(position({C: ["JD"]}, {}, calls=[1, 0, 0, 0]), "JD").state
    for move in ({"sacrifice": "AS"}, {"sacrifice": "ZZ"}, {"sacrifice": 3}, {"call": "AS"}):
        with pytest.raises(IllegalMove):
            ENGINE.check_move(state, C, move)
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, A, {"sacrifice": None})
    assert ENGINE.timeout_move(state, C) == {"sacrifice": None}


# --- end conditions -------------------------------------------------------------------------------


def test_fewer_than_two_active_ends_the_game() -> None:
    state = position({B: ["7H"], C: [], D: []}, {}, hand_cards={B: 0, C: 0, D: 0}, out=[C, D])
    resolution = call(state, "7H")  # A's 1st call: its right neighbour D is out, so B
    assert resolution.public["target"] == B
    assert resolution.public["outcome"] == "kill"
    assert resolution.public["points"] == 20
    assert resolution.public["over"] is True
    assert resolution.public["deal_over"] == {
        "deal": 1,
        "points": [20, 0, 0, 0],
        "reason": "one_active",
    }
    state = resolution.state
    assert ENGINE.to_act(state) is None
    assert all(ENGINE.legal_moves(state, seat) == [] for seat in range(4))
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (A,)
    assert outcome.ranking == ((A,), (B, C, D))
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, A, {"call": "AS"})


def test_max_calls_ends_the_deal_even_before_a_sacrifice() -> None:
    state = position({C: ["JD"]}, {}, calls=[1, 0, 0, 0], total_calls=4, options={"max_calls": 5})
    assert ENGINE.view(state, None)["max_calls"] == 5
    resolution = call(state, "JD")
    assert resolution.public["finishing"] is True
    assert resolution.public["sacrifice_step"] is None
    assert resolution.public["over"] is True
    assert resolution.state["deal_results"][0]["reason"] == "max_calls"


def test_max_calls_default_is_three_times_the_deck() -> None:
    assert fresh(4)["max_calls"] == 156
    assert fresh(3)["max_calls"] == 162
    assert fresh(4, max_calls=7)["max_calls"] == 7


def test_max_calls_counts_calls() -> None:
    state = choose_life(draft_all(fresh(4, max_calls=3))).state
    for count in range(3):
        assert not state["over"]
        state = call(state, "AS").state
        assert state["total_calls"] == count + 1 or state["over"]
    assert state["over"]
    assert state["deal_results"][-1]["reason"] == "max_calls"


def test_shared_win() -> None:
    state = position({}, {}, scores=[5, 5, 0, -3])
    state["over"] = True
    state["phase"] = "over"
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0, 1)
    assert outcome.ranking == ((0, 1), (2,), (3,))
    outcome = ENGINE.outcome(state, frozenset({0}))
    assert outcome is not None and outcome.winners == (1,) and outcome.ranking[-1] == (0,)


# --- options ----------------------------------------------------------------------------------


def test_defaults_and_validation() -> None:
    defaults = ENGINE.validate_options({}, 4)
    assert defaults == {
        "life_cards": 3,
        "turn_direction": "clockwise",
        "strict_memory": True,
        "history": "table_only",
        "max_calls": None,
        "deals": 1,
    }
    assert ENGINE.history_mode(defaults) == "table_only"
    assert ENGINE.history_mode({}) == "table_only"
    assert ENGINE.history_mode({"history": "full"}) == "full"
    assert ENGINE.history_mode({"history": "table_only"}) == "table_only"
    bad = [
        ({"life_cards": 0}, "options.life_cards"),
        ({"life_cards": 6}, "options.life_cards"),
        ({"life_cards": "3"}, "options.life_cards"),
        ({"turn_direction": "left"}, "options.turn_direction"),
        ({"strict_memory": "yes"}, "options.strict_memory"),
        ({"history": "none"}, "options.history"),
        ({"max_calls": 0}, "options.max_calls"),
        ({"max_calls": 2.5}, "options.max_calls"),
        ({"deals": 0}, "options.deals"),
        ({"deals": 6}, "options.deals"),
        ({"colour": "red"}, "options.colour"),
    ]
    for options, field in bad:
        with pytest.raises(InvalidOptions) as caught:
            ENGINE.validate_options(options, 4)
        assert field in caught.value.errors, options
    for players in (2, 7):
        with pytest.raises(InvalidOptions) as caught:
            ENGINE.validate_options({}, players)
        assert "seats" in caught.value.errors
    assert ENGINE.validate_options({"max_calls": 40.0}, 4)["max_calls"] == 40
    schema = ENGINE.options_schema
    assert schema["$schema"].endswith("2020-12/schema")
    assert all("default" in prop for prop in schema["properties"].values())


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_life_cards_option(k: int) -> None:
    state = draft_all(fresh(6, life_cards=k))
    assert ENGINE.legal_moves(state, 0)[0]["life"]["choose"] == k
    state = choose_life(state).state
    assert [len(cards) for cards in state["life"]] == [k] * 6
    assert [len(hand) for hand in state["hands"]] == [9 - k] * 6
    assert ENGINE.view(state, None)["starting_hand"] == 9 - k


def test_counterclockwise_turns_but_targets_stay_to_the_right() -> None:
    state = fresh(4, turn_direction="counterclockwise")
    start = state["current"]
    order = []
    for _ in range(5):
        order.append(state["current"])
        state = act(state, state["current"], ENGINE.timeout_move(state, state["current"])).state
    assert order == [(start - i) % 4 for i in range(5)]
    state = position({}, {}, options={"turn_direction": "counterclockwise"})
    assert ENGINE.view(state, None)["target"] == D
    state = call(state, "KS").state
    assert state["current"] == D
    assert ENGINE.view(state, None)["target"] == C  # D's 1st call: its right neighbour


def test_deals_add_scores_and_rotate_the_starting_player() -> None:
    state = fresh(4, deals=3, max_calls=2)
    first = state["starts"][0]
    assert state["starts"] == [first, (first + 1) % 4, (first + 2) % 4]
    step = 1
    for deal in (1, 2, 3):
        assert state["deal"] == deal
        assert state["current"] == state["starts"][deal - 1]
        assert len(state["pool"]) == 52
        state = choose_life(draft_all(state)).state
        assert state["current"] == state["starts"][deal - 1]
        before = ENGINE.scores(state)
        resolution = call(state, "AS")
        resolution = call(resolution.state, "2S")
        assert resolution.public["deal_over"]["deal"] == deal
        state = resolution.state
        gained = resolution.public["deal_over"]["points"]
        assert ENGINE.scores(state) == [b + g for b, g in zip(before, gained, strict=True)]
        step += 52 + 1 + 2
        assert state["step"] == step
    assert state["over"]
    assert [r["deal"] for r in state["deal_results"]] == [1, 2, 3]
    totals = [sum(r["points"][s] for r in state["deal_results"]) for s in range(4)]
    assert totals == ENGINE.scores(state)


def test_deals_with_counterclockwise_rotate_in_turn_order() -> None:
    state = fresh(5, deals=3, turn_direction="counterclockwise")
    first = state["starts"][0]
    assert state["starts"] == [first, (first - 1) % 5, (first - 2) % 5]


# --- views ---------------------------------------------------------------------------------------


VIEW_KEYS = {
    "deal", "deals", "step", "over", "phase", "players", "turn_direction", "history_mode",
    "strict_memory", "life_cards", "hand_size", "starting_hand", "starting_player", "current",
    "pool", "hand_count", "life_count", "discard_top", "discard_count", "exposed", "scores",
    "points", "deal_results", "calls_made", "total_calls", "max_calls", "target", "pending",
    "active", "finished", "history",
}  # fmt: skip


def test_view_fields() -> None:
    state = fresh(4)
    spectator = ENGINE.view(state, None)
    assert set(spectator) == VIEW_KEYS
    assert set(ENGINE.view(state, 0)) == VIEW_KEYS | {"hand"}
    assert spectator["phase"] == {"kind": "draft", "seat": state["current"]}
    state = draft_all(state)
    view = ENGINE.view(state, 2)
    assert view["phase"] == {"kind": "life", "seats": [0, 1, 2, 3], "choose": 3}
    assert view["hand"] == sorted(state["hands"][2], key=PACK_52.index)
    assert len(view["history"]) == 52
    assert view["history"][0]["kind"] == "take"
    state = choose_life(state).state
    view = ENGINE.view(state, 1)
    assert view["phase"] == {"kind": "hunt", "seat": state["current"]}
    assert view["hand_count"] == [10] * 4 and view["life_count"] == [3] * 4
    assert view["history"][-1] == {"step": 53, "deal": 1, "kind": "life", "life_counts": [3] * 4}


def test_table_only_views_carry_no_history_and_no_other_hand() -> None:
    state = fresh(4, history="table_only")
    for _ in range(9):
        state = act(state, state["current"], ENGINE.timeout_move(state, state["current"])).state
    view = ENGINE.view(state, 0)
    assert view["history"] == []
    assert view["history_mode"] == "table_only"
    assert view["pool"] == state["pool"]
    assert view["hand_count"] == [len(hand) for hand in state["hands"]]
    text = json.dumps(view)
    for seat in (1, 2, 3):
        for card in state["hands"][seat]:
            assert f'"{card}"' not in text
    state = choose_life(draft_all(state)).state
    state = call(state, "AS").state
    state = call(state, "2S").state
    view = ENGINE.view(state, 3)
    assert view["history"] == []
    assert view["discard_top"] == state["discard"][-1]
    assert "hand" not in ENGINE.view(state, None)


def test_full_history_views_keep_the_public_events() -> None:
    state = choose_life(draft_all(fresh(4))).state
    state = call(state, "AS").state
    history = ENGINE.view(state, None)["history"]
    assert history[-1]["kind"] == "call" and history[-1]["card"] == "AS"
    assert set(history[-1]) >= {"seat", "target", "outcome", "points", "holder", "finishing"}


# --- shuffle_hidden ------------------------------------------------------------------------------


def test_shuffle_hidden_redraws_the_owners_life_cards_under_table_only() -> None:
    state = choose_life(draft_all(fresh(4, history="table_only"))).state
    rng = make_rng()
    moved = 0
    for _ in range(10):
        hidden = ENGINE.shuffle_hidden(state, 0, rng)
        assert hidden["hands"][0] == state["hands"][0]
        assert ENGINE.view(hidden, 0) == ENGINE.view(state, 0)
        moved += hidden["life"][0] != state["life"][0]
    assert moved >= 8


def test_shuffle_hidden_under_full_keeps_what_the_draft_shows() -> None:
    state = choose_life(draft_all(fresh(4))).state
    rng = make_rng()
    hidden = ENGINE.shuffle_hidden(state, 0, rng)
    assert hidden["life"][0] == state["life"][0]
    for seat in range(4):
        assert sorted(hidden["hands"][seat] + hidden["life"][seat]) == sorted(
            state["hands"][seat] + state["life"][seat]
        )
    spectator = [ENGINE.shuffle_hidden(state, None, rng)["life"] != state["life"] for _ in range(5)]
    assert any(spectator)


# --- random playouts -----------------------------------------------------------------------------

PLAYOUTS = scaled(50)  # FACEDOWN_TEST_SCALE plays more (tests/scale.py)
CHUNKS = 2  # so that pytest-xdist can spread them


def random_options(chooser: random.Random) -> tuple[int, dict[str, Any]]:
    players = chooser.randint(3, 6)
    options = {
        "life_cards": chooser.randint(1, 5),
        "turn_direction": chooser.choice(["clockwise", "counterclockwise"]),
        "strict_memory": chooser.random() < 0.5,
        "history": chooser.choice(["full", "table_only"]),
        "max_calls": chooser.choice([4, 12, 25]),
        "deals": chooser.choice([1, 1, 1, 2]),
    }
    return players, options


def random_move(legal: list[Move], chooser: random.Random) -> Move:
    move = chooser.choice(legal)
    if "life" in move:
        template = move["life"]
        return {"life": chooser.sample(template["from"], template["choose"])}
    return move


def roundtrip(value: Any) -> None:
    assert json.loads(json.dumps(value)) == value


class FastRng(DealRng):
    """A DealRng drawing from ``random.Random``: the same interface, cheaper for the many
    ``shuffle_hidden`` calls of a playout (only the deal stream must be the HMAC one)."""

    def __init__(self, number: int) -> None:
        super().__init__(bytes(32), "shuffler", [])
        self._random = random.Random(number)

    def randbelow(self, n: int) -> int:
        return self._random.randrange(n)


def playout(number: int) -> tuple[int, int, State]:
    chooser = random.Random(number)
    players, options = random_options(chooser)
    deal = DealRng(chooser.randbytes(32), f"match-{number}", [None] * players)
    state = ENGINE.initial_state(players, options, deal)
    shuffler = FastRng(number)
    shuffles = changed = steps = 0
    bound = options["deals"] * (len(pack(players)) + 1 + 2 * options["max_calls"] + players)
    while True:
        before = json.loads(json.dumps(state))
        assert before == state
        assert state["step"] == steps + 1
        checked = chooser.choice([None, *range(players)])
        for seat in [None, *range(players)]:
            view = ENGINE.view(state, seat)
            if seat == checked:
                roundtrip(view)
            hidden = ENGINE.shuffle_hidden(state, seat, shuffler)
            assert ENGINE.view(hidden, seat) == view, (number, seat, state["phase"])
            if state["phase"] in ("hunt", "claim", "sacrifice"):
                shuffles += 1
                changed += hidden != state
            if view["history_mode"] == "table_only":
                assert view["history"] == []
            assert view["scores"] == ENGINE.scores(state)
        to_act = ENGINE.to_act(state)
        if to_act is None:
            break
        assert ENGINE.outcome(state) is None
        if not to_act.simultaneous:
            assert len(to_act.seats) == 1
        moves: dict[int, Move] = {}
        for seat in range(players):
            legal = ENGINE.legal_moves(state, seat)
            roundtrip(legal)
            if seat not in to_act.seats:
                assert legal == []
                with pytest.raises(IllegalMove):
                    ENGINE.check_move(state, seat, ENGINE.legal_moves(state, to_act.seats[0])[0])
                continue
            assert legal
            timeout = ENGINE.timeout_move(state, seat)
            ENGINE.check_move(state, seat, timeout)
            if "life" not in timeout:
                assert timeout in legal
            moves[seat] = random_move(legal, chooser)
            ENGINE.check_move(state, seat, moves[seat])
        resolution = ENGINE.apply(state, moves)
        assert state == before, "apply mutated its input"
        roundtrip(resolution.public)
        assert resolution.private == {}
        if "life" in next(iter(moves.values())):
            assert set(resolution.public) == {
                "step", "deal", "kind", "life_counts", "scores", "phase", "deal_over", "over"
            }  # fmt: skip
        state = resolution.state
        steps += 1
        assert steps <= bound, "the game did not end in time"
    for seat in range(players):
        assert ENGINE.legal_moves(state, seat) == []
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert list(outcome.scores) == ENGINE.scores(state)
    assert outcome.winners and set(outcome.winners) <= set(range(players))
    assert sorted(s for group in outcome.ranking for s in group) == list(range(players))
    assert outcome.ranking[0] == outcome.winners
    totals = [sum(r["points"][s] for r in state["deal_results"]) for s in range(players)]
    assert totals == ENGINE.scores(state)
    assert len(state["deal_results"]) == options["deals"]
    # Under full history the scores replay from the public events.
    if options["history"] == "full":
        replayed = [0] * players
        for event in ENGINE.view(state, None)["history"]:
            if event.get("outcome"):
                replayed[event["seat"]] += event["points"]
            for seat, penalty in enumerate(event.get("penalties") or []):
                replayed[seat] += penalty
        assert replayed == ENGINE.scores(state)
    return shuffles, changed, state


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_playouts(chunk: int) -> None:
    shuffles = changed = 0
    phases: set[str] = set()
    for number in range(chunk, PLAYOUTS, CHUNKS):
        s, c, state = playout(number)
        shuffles += s
        changed += c
        phases.update(entry["kind"] for entry in state["history"])
    # Once life cards are down, hidden information is genuinely redrawn most of the time.
    assert changed > shuffles // 2
    assert phases == {"take", "life", "call", "claim", "sacrifice"}


def test_same_seed_gives_the_same_game() -> None:
    first = ENGINE.initial_state(5, {"deals": 2}, make_rng(5))
    assert first == ENGINE.initial_state(5, {"deals": 2}, make_rng(5))
