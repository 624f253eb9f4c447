"""Xato: the generic page, its own random bot (life templates), a greedy and an expert one."""

from __future__ import annotations

from games.bots.xato import ExpertXatoBot, GreedyXatoBot, RandomXatoBot
from games.catalog.record import ConformanceHints, GameRecord, bots_by_name
from games.engine.xato import ENGINE

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomXatoBot(), GreedyXatoBot(), ExpertXatoBot()),
    conformance=ConformanceHints(
        playouts=60,
        # per deal: the draft, the life step, every call with its claim step, and the sacrifices
        step_bound=lambda state: (
            int(state["deals"]) * (54 + 1 + 2 * int(state["max_calls"]) + int(state["players"]))
        ),
        option_choices={"max_calls": [8, 20], "deals": [1, 2]},
        # the draft is public, and under full history there is little left to redraw
        redrawn_one_in=3,
    ),
)
