"""Xato: the generic page, its own random bot (life templates), a greedy and an expert one."""

from __future__ import annotations

from games.bots.xato import ExpertXatoBot, GreedyXatoBot, RandomXatoBot
from games.catalog.record import BotNote, ConformanceHints, GameRecord, Strength, bots_by_name
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
    bot_notes={
        "random": BotNote(
            "Plays a uniformly random legal move.",
            Strength(against="greedy", margin=-85.93, win_rate=0.000, players=3, deals=200),
        ),
        "greedy": BotNote(
            "Calls what it believes its target holds, from what its seat saw.",
            Strength(against="random", margin=171.85, win_rate=1.000, players=3, deals=200),
        ),
        "expert": BotNote(
            "Tracks who holds which card from everything its seat saw and searches calls and "
            "sacrifices by determinized playouts, and exactly near the end of the deal.",
            Strength(against="greedy", margin=0.32, win_rate=0.290, players=4, deals=100),
        ),
    },
)
