"""Arena-only opponents: fixed rules the arena (bench/arena.py) can seat by name, without
making them server bots. ``--bots prize+1,greedy`` finds ``prize+1`` here when the game's
catalogue has no bot of that name; any other ``BaseBot`` subclass can be seated as
``package.module:ClassName``.

GOPS (``gops``), every rule bidding from its hand the card nearest a target, ties at random:

- ``match``: the pot's value (the sum of its prize cards).
- ``prize+1``, ``prize+2``, ``prize+3``, ``prize-1``: the pot's value plus or minus k.
- ``reversed``: high cards on low prizes, the target ``num_cards + 1 - pot value``.
- ``counter``: the pot's value + 1, and the lowest card on the top prize (when no higher
  prize is still to come): the fixed counter that beats ``greedy`` in every game.
"""

from __future__ import annotations

from collections.abc import Mapping

from cardgames.bots.base import BaseBot, BotContext, Decision, nearest_card


class GopsTargetBot(BaseBot):
    """Bids the card nearest ``pot value + offset`` (or mirrored, for ``reversed``)."""

    def __init__(
        self, name: str, offset: int = 0, *, mirrored: bool = False, dump_top: bool = False
    ) -> None:
        self.name = name
        self.offset = offset
        self.mirrored = mirrored
        self.dump_top = dump_top

    def choose(self, ctx: BotContext) -> Decision:
        pot = list(ctx.view.get("pot", []))
        value = sum(pot)
        if (
            self.dump_top
            and pot
            and max(pot) > max(ctx.view.get("remaining_prizes", []), default=0)
        ):
            target: float = 0
        elif self.mirrored:
            target = int(ctx.view.get("turns", 13)) + 1 - value + self.offset
        else:
            target = value + self.offset
        return Decision(
            move=nearest_card(ctx.legal_moves, target, ctx.rng), memory=dict(ctx.memory)
        )


ARENA_BOTS: Mapping[str, Mapping[str, BaseBot]] = {
    "gops": {
        bot.name: bot
        for bot in (
            GopsTargetBot("match"),
            GopsTargetBot("prize+1", 1),
            GopsTargetBot("prize+2", 2),
            GopsTargetBot("prize+3", 3),
            GopsTargetBot("prize-1", -1),
            GopsTargetBot("reversed", mirrored=True),
            GopsTargetBot("counter", 1, dump_top=True),
        )
    },
}
