"""A Facedown GOPS bot that plays from an OpenSpiel ``goofspiel`` state.

OpenSpiel's goofspiel is loaded with ``points_order="random"``: the prize of each turn is then
a chance node, so applying the chance outcome of the prize Facedown turned up (action a is
card a + 1) replays Facedown's prize sequence exactly, whatever the deal. "descending" or
"ascending" would fix an order Facedown's random deal does not follow. ``returns_type =
"total_points"`` makes the returns the points each player won, Facedown's scores.
``imp_info`` changes only what OpenSpiel's observations show, not the play; it is on, as
Facedown shows no seat the other's hand beyond the public bids.

Facedown's ``tie_rule = discard`` is OpenSpiel's rule: a tied bid discards the prize.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

import pyspiel
from facedown_client import Bot, SeatView
from facedown_client.types import Move
from open_spiel.python import policy


def goofspiel(num_cards: int) -> Any:
    return pyspiel.load_game(
        "goofspiel",
        {
            "num_cards": num_cards,
            "players": 2,
            "points_order": "random",
            "imp_info": True,
            "returns_type": "total_points",
        },
    )


def replay(game: Any, turns: Iterable[Mapping[str, Any]], prize: int | None = None) -> Any:
    """The OpenSpiel state after Facedown's resolved ``turns`` (a view's ``history``: ``pot``
    and ``bids`` per turn), with ``prize`` (the open turn's prize card) turned up if given."""
    state = game.new_initial_state()
    for turn in turns:
        if state.is_terminal():
            # OpenSpiel plays the last turn, where every card is forced, by itself (as
            # Facedown's server does): nothing of it is left to apply.
            break
        (card,) = turn["pot"]  # under tie_rule discard a pot is always one card
        state.apply_action(card - 1)
        state.apply_actions([bid - 1 for bid in turn["bids"]])
    if prize is not None:
        state.apply_action(prize - 1)
    return state


class OpenSpielGopsBot(Bot):
    """Plays OpenSpiel's uniform random policy, sampled with its own seeded generator."""

    def __init__(self, num_cards: int, seed: int) -> None:
        self.game = goofspiel(num_cards)
        self.policy = policy.UniformRandomPolicy(self.game)
        self.rng = random.Random(seed)
        self.actions: list[int] = []

    def choose(self, view: SeatView) -> Move:
        (prize,) = view.view["pot"]
        state = replay(self.game, view.view["history"], prize)
        assert state.is_simultaneous_node()
        probabilities = self.policy.action_probabilities(state, view.seat)
        actions = sorted(probabilities)
        action = self.rng.choices(actions, weights=[probabilities[a] for a in actions])[0]
        self.actions.append(action)
        move = {"card": action + 1}
        assert move in view.legal_moves, (move, view.legal_moves)
        return move
