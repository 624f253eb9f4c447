"""Bot strategies per game, found by game slug and name. Pure: no Django, no I/O."""

from __future__ import annotations

from games.bots.base import Bot, Decision, RandomBot
from games.bots.gops import GreedyGopsBot
from games.bots.hols_der_geier import GreedyHolsBot
from games.bots.memory import MEMORY_BOTS
from games.bots.old_men_of_the_forest import OLD_MEN_BOTS
from games.bots.xato import XATO_BOTS

BOTS: dict[str, dict[str, Bot]] = {
    "gops": {"random": RandomBot(), "greedy": GreedyGopsBot()},
    "hols-der-geier": {"random": RandomBot(), "greedy": GreedyHolsBot()},
    "old-men-of-the-forest": dict(OLD_MEN_BOTS),
    "xato": dict(XATO_BOTS),
    "memory": dict(MEMORY_BOTS),
}


def get_bot(game: str, name: str) -> Bot | None:
    return BOTS.get(game, {}).get(name)


__all__ = ["BOTS", "Bot", "Decision", "get_bot"]
