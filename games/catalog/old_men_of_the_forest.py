"""Old Men of the Forest: the generic page, a random, a greedy and an expert bot."""

from __future__ import annotations

from cardgames.bots.base import RandomBot
from cardgames.bots.old_men_of_the_forest import ExpertOldMenBot, GreedyOldMenBot
from cardgames.engines.old_men_of_the_forest import ENGINE
from games.catalog.option_words import Choice, OptionWords, gettext_noop
from games.catalog.record import BotNote, ConformanceHints, GameRecord, Strength, bots_by_name

OPTION_WORDS = {
    "allow_five": OptionWords(
        gettext_noop("Allow 5 players"),
        gettext_noop("An unofficial fifth seat (the game is made for 3 or 4)."),
    ),
    "deforestation_penalty": OptionWords(
        gettext_noop("Deforestation cards at the end"),
        gettext_noop("What each deforestation card a player still owns costs at the end."),
        (
            Choice(
                "additional",
                gettext_noop("Costs 3 points each"),
                gettext_noop("2 more than an ordinary card."),
            ),
            Choice("replace", gettext_noop("Costs 2 points each")),
        ),
    ),
    "games": OptionWords(
        gettext_noop("Games"),
        gettext_noop(
            "How many games to play (the publisher suggests 2); totals add up and everything "
            "is dealt again."
        ),
    ),
}

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyOldMenBot(), ExpertOldMenBot()),
    conformance=ConformanceHints(playouts=100),
    bot_notes={
        "random": BotNote(
            gettext_noop("Plays a uniformly random legal move."),
            Strength(against="greedy", margin=-5.68, win_rate=0.144, players=3, deals=200),
        ),
        "greedy": BotNote(
            gettext_noop(
                "Takes the cards that bring its collection closest to an orang-utan of the layout."
            ),
            Strength(against="random", margin=11.36, win_rate=0.712, players=3, deals=200),
        ),
        "expert": BotNote(
            gettext_noop(
                "Counts the cards played face up and plays its legal moves out over sampled deals "
                "of the unseen cards, dropping the worse half each round."
            ),
            Strength(against="greedy", margin=8.25, win_rate=0.733, players=3, deals=40),
        ),
    },
    option_words=OPTION_WORDS,
    # The placeholder cards' note (cardgames/engines/data/), as the views carry it.
    view_texts=(
        gettext_noop(
            "Stand-in orang-utan cards: the published list is not available. Only OU01 (Baby, "
            "3 points, one yellow card) is known to be real. Requirements count colours only."
        ),
    ),
)
