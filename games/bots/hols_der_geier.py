"""Hols der Geier bots. ``greedy`` spends high cards on big mice and keeps clear of the lowest
bid on vultures; under ``history: table_only`` it remembers the spent cards it saw on the piles
(in its memory, as a player at the table would)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.bots.base import NO_OPTIONS, Decision, nearest_card
from games.engine.protocol import Move


class GreedyHolsBot:
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
        pot = sum(view.get("pot", []))
        # Mice 1..10 map onto bid cards 1..15, a bigger pot deserving a higher card; against
        # vultures bid in the middle-high range, never the lowest card.
        target = 1.5 * pot + 1 if pot >= 0 else 6 + 1.5 * -pot
        cards = sorted(move["card"] for move in legal_moves)
        candidates = legal_moves
        if pot < 0 and len(cards) > 1:
            candidates = [move for move in legal_moves if move["card"] != cards[0]]
        return Decision(move=nearest_card(candidates, target, rng), memory=_remember(view, memory))


def _remember(view: Mapping[str, Any], memory: Mapping[str, Any]) -> dict[str, Any]:
    """Record every seat's visible top card of the current deal (table_only play)."""
    deal = view.get("deal")
    seen: dict[str, Any] = dict(memory) if memory.get("deal") == deal else {"deal": deal}
    spent = {str(k): list(v) for k, v in seen.get("spent", {}).items()}
    for index, top in enumerate(view.get("piles", [])):
        if top is not None and top not in spent.setdefault(str(index), []):
            spent[str(index)].append(top)
    seen["spent"] = spent
    return seen
