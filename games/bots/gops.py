"""GOPS bots. ``greedy`` bids close to what the pot is worth, scaled to the cards in play."""

from __future__ import annotations

from games.bots.base import BaseBot, BotContext, Decision, nearest_card


class GreedyGopsBot(BaseBot):
    name = "greedy"

    def choose(self, ctx: BotContext) -> Decision:
        # A prize of value v is worth about the v-th highest bid card; a carried pot more.
        pot_value = sum(ctx.view.get("pot", []))
        top = max(move["card"] for move in ctx.legal_moves)
        target = min(pot_value, top)
        move = nearest_card(ctx.legal_moves, target, ctx.rng)
        return Decision(move=move, memory=dict(ctx.memory))
