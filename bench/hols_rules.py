"""Arena-only Hols der Geier rules (seat them as ``bench.hols_rules:RankHolsBot``).

``RankHolsBot`` — the rank-mapping heuristic: the pot's importance (a mouse its value, a
vulture half its size) takes the same rank among the prizes still to contest as the bid
takes in hand, a rank between two cards rounded at random in proportion.
It is the strongest fixed rule written for the game and the one the ``expert`` is measured
against (and plays out its searches with).
"""

from __future__ import annotations

from cardgames.bots.base import BaseBot, BotContext, Decision
from cardgames.bots.hols_der_geier import rank_bid


class RankHolsBot(BaseBot):
    name = "rank"

    def choose(self, ctx: BotContext) -> Decision:
        view = ctx.view
        hand = sorted(move["card"] for move in ctx.legal_moves)
        pot = sum(view.get("pot", []))
        upcoming = [int(card) for card in view.get("remaining_prizes", [])]
        card = rank_bid(hand, pot, upcoming, ctx.rng)
        return Decision(move={"card": card}, memory=dict(ctx.memory))
