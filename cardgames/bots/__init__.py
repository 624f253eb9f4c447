"""Bot strategies, one module per game. Pure: no Django, no I/O; they may import the engine only.

Which bots a game offers is written in its record (``games.catalog``)."""

from __future__ import annotations

from cardgames.bots.base import BaseBot, Bot, BotContext, Decision, Observation

__all__ = ["BaseBot", "Bot", "BotContext", "Decision", "Observation"]
