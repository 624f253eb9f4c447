"""Memory: the generic page, a random, a greedy (forgetful) and an expert bot."""

from __future__ import annotations

from cardgames.bots.base import RandomBot
from cardgames.bots.memory import ExpertMemoryBot, GreedyMemoryBot
from cardgames.engines.memory import ENGINE
from games.catalog.option_words import Choice, OptionWords, gettext_noop
from games.catalog.record import BotNote, ConformanceHints, GameRecord, Strength, bots_by_name

OPTION_WORDS = {
    "pairs": OptionWords(
        gettext_noop("Pairs"), gettext_noop("How many pairs of cards lie on the grid (6 to 26).")
    ),
    "flips_visible_to": OptionWords(
        gettext_noop("Who sees a flipped card"),
        gettext_noop("Whether everyone sees a flipped card, or only the player who flips it."),
        (
            Choice("all", gettext_noop("Everyone")),
            Choice(
                "flipper",
                gettext_noop("Only the player who flips"),
                gettext_noop("The others see which tile was turned, not its card."),
            ),
        ),
    ),
    "another_turn_on_pair": OptionWords(
        gettext_noop("Another turn after a pair"),
        gettext_noop("A player who takes a pair flips again."),
    ),
    "scoring": OptionWords(
        gettext_noop("Scoring"),
        gettext_noop("What a pair is worth."),
        (
            Choice("pairs", gettext_noop("One point per pair")),
            Choice(
                "ranks",
                gettext_noop("The pair's rank"),
                gettext_noop("Ace 1 point, 2 two points, … King 13."),
            ),
        ),
    ),
    "history": OptionWords(
        gettext_noop("Earlier flips"),
        gettext_noop("Whether earlier flips stay on view."),
        (
            Choice(
                "table_only",
                gettext_noop("Remember them yourself"),
                gettext_noop("Only the grid now and the pairs taken show."),
            ),
            Choice("full", gettext_noop("Always on view")),
        ),
    ),
}

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyMemoryBot(), ExpertMemoryBot()),
    conformance=ConformanceHints(
        playouts=100,
        # random flipping has no hard bound; 40 flips per card is far beyond what seeds reach
        step_bound=lambda state: 40 * len(state["cards"]),
        option_choices={"pairs": [6, 8, 10]},
    ),
    bot_notes={
        "random": BotNote(
            gettext_noop("Flips uniformly random face-down cards."),
            Strength(against="greedy", margin=-23.84, win_rate=0.000, players=2, deals=200),
        ),
        "greedy": BotNote(
            gettext_noop(
                "Takes a pair it knows of; else flips an unknown card and matches it if it can."
            ),
            Strength(against="random", margin=23.84, win_rate=1.000, players=2, deals=200),
        ),
        "expert": BotNote(
            gettext_noop(
                "Remembers every card it has seen and chooses between two new flips, a safe "
                "new-then-known flip and a pass by exact calculation."
            ),
            Strength(against="greedy", margin=6.22, win_rate=0.86, players=2, deals=100),
        ),
    },
    option_words=OPTION_WORDS,
)
