"""Memory: the generic page, a random, a greedy (forgetful) and an expert bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.memory import ExpertMemoryBot, GreedyMemoryBot
from games.catalog.record import ConformanceHints, GameRecord, bots_by_name
from games.engine.memory import ENGINE

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyMemoryBot(), ExpertMemoryBot()),
    conformance=ConformanceHints(
        playouts=100,
        # random flipping has no hard bound; 40 flips per card is far beyond what seeds reach
        step_bound=lambda state: 40 * len(state["cards"]),
        option_choices={"pairs": [6, 8, 10]},
    ),
)
