"""The expert's playout follows the engine: driven by its own greedy choices from a seat's
view at any point of a game, with the true hidden cards, it ends on the engine's scores."""

from __future__ import annotations

import random

import pytest

from cardgames.bots.old_men_sim import Playout, code, name
from cardgames.engines.old_men_of_the_forest import ENGINE
from cardgames.engines.protocol import Move
from cardgames.engines.rng import DealRng


def _engine_move(playout: Playout, choice: int | str | None) -> Move:
    if playout.phase == "play":
        assert isinstance(choice, int)
        return {"play": name(choice)}
    if playout.phase == "take":
        assert isinstance(choice, int)
        return {"take": name(choice)}
    assert not isinstance(choice, int)
    return {"cash_in": None if choice is None else {"orangutan": choice}}


@pytest.mark.parametrize(
    ("players", "seed", "start"), [(3, 1, 0), (4, 2, 7), (4, 3, 23), (3, 4, 40)]
)
def test_playout_ends_on_the_engine_scores(players: int, seed: int, start: int) -> None:
    state = ENGINE.initial_state(players, {}, DealRng(bytes([seed]) * 32, "om", [None] * players))
    rng = random.Random(seed)
    for _ in range(start):  # random play up to the starting point
        (seat,) = ENGINE.to_act(state).seats
        state = ENGINE.apply(state, {seat: rng.choice(ENGINE.legal_moves(state, seat))}).state
    view = ENGINE.view(state, 0)
    hands = [[code(card) for card in hand] for hand in state["hands"]]
    playout = Playout(view, hands, list(state["deck"]), random.Random(seed))
    while (to_act := ENGINE.to_act(state)) is not None:
        (seat,) = to_act.seats
        assert seat == playout.current
        move = _engine_move(playout, playout.greedy_choice())
        assert move in ENGINE.legal_moves(state, seat)
        state = ENGINE.apply(state, {seat: move}).state
        playout.step(_choice(move))
    assert playout.phase == "over"
    assert playout.scores() == ENGINE.scores(state)


def _choice(move: Move) -> int | str | None:
    if "play" in move:
        return code(move["play"])
    if "take" in move:
        return code(move["take"])
    return None if move["cash_in"] is None else move["cash_in"]["orangutan"]
