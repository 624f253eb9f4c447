"""Memory: the generic page, a random and a greedy (forgetful) bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.memory import GreedyMemoryBot
from games.catalog.record import BotNote, ConformanceHints, GameRecord, Strength, bots_by_name
from games.engine.memory import ENGINE

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyMemoryBot()),
    conformance=ConformanceHints(
        playouts=100,
        # random flipping has no hard bound; 40 flips per card is far beyond what seeds reach
        step_bound=lambda state: 40 * len(state["cards"]),
        option_choices={"pairs": [6, 8, 10]},
    ),
    bot_notes={
        "random": BotNote(
            "Flips uniformly random face-down cards.",
            Strength(against="greedy", margin=-23.84, win_rate=0.000, players=2, deals=200),
        ),
        "greedy": BotNote(
            "Takes a pair it knows of; else flips an unknown card and matches it if it can.",
            Strength(against="random", margin=23.84, win_rate=1.000, players=2, deals=200),
        ),
    },
)
