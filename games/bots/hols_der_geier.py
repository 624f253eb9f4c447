"""Hols der Geier bots. ``greedy`` spends high cards on big mice and keeps clear of the lowest
bid on vultures; under ``history: table_only`` it remembers the spent cards it saw on the piles
(in its memory, as a player at the table would)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.bots.base import BaseBot, BotContext, Decision, nearest_card


class GreedyHolsBot(BaseBot):
    name = "greedy"

    def choose(self, ctx: BotContext) -> Decision:
        view, legal_moves = ctx.view, ctx.legal_moves
        pot = sum(view.get("pot", []))
        # Mice 1..10 map onto bid cards 1..15, a bigger pot deserving a higher card; against
        # vultures bid in the middle-high range, never the lowest card.
        target = 1.5 * pot + 1 if pot >= 0 else 6 + 1.5 * -pot
        cards = sorted(move["card"] for move in legal_moves)
        candidates = legal_moves
        if pot < 0 and len(cards) > 1:
            candidates = [move for move in legal_moves if move["card"] != cards[0]]
        move = nearest_card(candidates, target, ctx.rng)
        return Decision(move=move, memory=_remember(view, ctx.memory))


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
