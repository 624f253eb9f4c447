"""Fixed-rule GOPS opponents for the arena (never seated on the server).

Each maps the prize turned up this turn to a bid card by a fixed permutation of 1 … N, so the
card is always in hand in a two-player game: every prize is turned up exactly once.

- ``match``: bid the prize's own value.
- ``plus1`` … ``plus3``, ``minus1``: bid the prize + k, wrapping round (prize + 1 bids 1 on
  the top prize): ``plus1`` is the counter to ``greedy`` from issue #14.
- ``reversed``: high cards on low prizes (N + 1 - prize).
- ``plus4`` … ``plus6``: further shifts, searched as counters to ``expert``.
"""

from __future__ import annotations

from cardgames.bots.base import BaseBot, BotContext, Decision


class ShiftRule(BaseBot):
    """Bid the prize + ``shift`` (mod N), or N + 1 - prize when ``reverse``."""

    def __init__(self, name: str, shift: int = 0, reverse: bool = False) -> None:
        self.name = name
        self.shift = shift
        self.reverse = reverse

    def choose(self, ctx: BotContext) -> Decision:
        n = int(ctx.view["turns"])
        prize = int(ctx.view["pot"][-1])
        card = n + 1 - prize if self.reverse else (prize - 1 + self.shift) % n + 1
        legal = sorted(move["card"] for move in ctx.legal_moves)
        if card not in legal:  # only with three players or a carried pot: the nearest above
            card = next((c for c in legal if c >= card), legal[-1])
        return Decision(move={"card": card}, memory=dict(ctx.memory))


RULES: dict[str, BaseBot] = {
    rule.name: rule
    for rule in [
        ShiftRule("match"),
        ShiftRule("plus1", 1),
        ShiftRule("plus2", 2),
        ShiftRule("plus3", 3),
        ShiftRule("minus1", -1),
        ShiftRule("reversed", reverse=True),
        ShiftRule("plus4", 4),
        ShiftRule("plus5", 5),
        ShiftRule("plus6", 6),
    ]
}
