"""Xato: the generic page, its own random bot (life templates), a greedy and an expert one."""

from __future__ import annotations

from cardgames.bots.xato import ExpertXatoBot, GreedyXatoBot, RandomXatoBot
from cardgames.engines.xato import ENGINE
from games.catalog.option_words import Choice, OptionWords, gettext_noop
from games.catalog.record import BotNote, ConformanceHints, GameRecord, Strength, bots_by_name

OPTION_WORDS = {
    "life_cards": OptionWords(
        gettext_noop("Life cards"),
        gettext_noop("How many life cards each player chooses after the draft."),
    ),
    "turn_direction": OptionWords(
        gettext_noop("Direction of play"),
        gettext_noop("Which way the draft and the hunt go round the table."),
        (
            Choice("clockwise", gettext_noop("Clockwise")),
            Choice("counterclockwise", gettext_noop("Counter-clockwise")),
        ),
    ),
    "strict_memory": OptionWords(
        gettext_noop("Claim forgotten life cards"),
        gettext_noop(
            "When a called card is in nobody's hand, everyone says whether it is their life "
            "card; a wrong answer either way costs 10 points."
        ),
    ),
    "history": OptionWords(
        gettext_noop("Earlier turns"),
        gettext_noop("Whether past picks and calls stay on view."),
        (
            Choice(
                "table_only",
                gettext_noop("Remember them yourself"),
                gettext_noop("Only what is on the table now shows, as at a real table."),
            ),
            Choice("full", gettext_noop("Always on view")),
        ),
    ),
    "max_calls": OptionWords(
        gettext_noop("Most calls per deal"),
        gettext_noop(
            "The deal ends after this many calls; empty: three times the number of cards."
        ),
    ),
    "deals": OptionWords(
        gettext_noop("Deals"),
        gettext_noop("How many deals to play; scores add up and the first player moves on."),
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
            gettext_noop("Plays a uniformly random legal move."),
            Strength(against="greedy", margin=-85.93, win_rate=0.000, players=3, deals=200),
        ),
        "greedy": BotNote(
            gettext_noop("Calls what it believes its target holds, from what its seat saw."),
            Strength(against="random", margin=171.85, win_rate=1.000, players=3, deals=200),
        ),
        "expert": BotNote(
            gettext_noop(
                "Tracks who holds which card from everything its seat saw and searches calls and "
                "sacrifices by determinized playouts, and exactly near the end of the deal."
            ),
            Strength(against="greedy", margin=0.32, win_rate=0.290, players=4, deals=100),
        ),
    },
    option_words=OPTION_WORDS,
)
