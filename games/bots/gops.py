"""GOPS bots. ``greedy`` bids close to what the pot is worth, scaled to the cards in play."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.bots.base import NO_OPTIONS, Decision, nearest_card
from games.engine.protocol import Move


class GreedyGopsBot:
    name = "greedy"
    options_schema = NO_OPTIONS

    def choose(
        self,
        *,
        seat: int,
        view: Mapping[str, Any],
        legal_moves: list[Move],
        memory: Mapping[str, Any],
        options: Mapping[str, Any],
        rng: random.Random,
    ) -> Decision:
        # A prize of value v is worth about the v-th highest bid card; a carried pot more.
        pot_value = sum(view.get("pot", []))
        top = max(move["card"] for move in legal_moves)
        target = min(pot_value, top)
        return Decision(move=nearest_card(legal_moves, target, rng), memory=dict(memory))
