"""Xato: the generic page, its own random bot (life templates), a greedy and an expert one."""

from __future__ import annotations

from games.bots.xato import ExpertXatoBot, GreedyXatoBot, RandomXatoBot
from games.catalog.option_words import Choice, OptionWords
from games.catalog.record import BotNote, ConformanceHints, GameRecord, Strength, bots_by_name
from games.engine.xato import ENGINE

OPTION_WORDS = {
    "life_cards": OptionWords(
        "Life cards", "How many life cards each player chooses after the draft."
    ),
    "turn_direction": OptionWords(
        "Direction of play",
        "Which way the draft and the hunt go round the table.",
        (Choice("clockwise", "Clockwise"), Choice("counterclockwise", "Counter-clockwise")),
    ),
    "strict_memory": OptionWords(
        "Claim forgotten life cards",
        "When a called card is in nobody's hand, everyone says whether it is their life "
        "card; a wrong answer either way costs 10 points.",
    ),
    "history": OptionWords(
        "Earlier turns",
        "Whether past picks and calls stay on view.",
        (
            Choice(
                "table_only",
                "Remember them yourself",
                "Only what is on the table now shows, as at a real table.",
            ),
            Choice("full", "Always on view"),
        ),
    ),
    "max_calls": OptionWords(
        "Most calls per deal",
        "The deal ends after this many calls; empty: three times the number of cards.",
    ),
    "deals": OptionWords(
        "Deals", "How many deals to play; scores add up and the first player moves on."
    ),
}

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
    option_words=OPTION_WORDS,
)
