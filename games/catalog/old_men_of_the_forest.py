"""Old Men of the Forest: the generic page, a random, a greedy and an expert bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.old_men_of_the_forest import ExpertOldMenBot, GreedyOldMenBot
from games.catalog.option_words import Choice, OptionWords
from games.catalog.record import BotNote, ConformanceHints, GameRecord, Strength, bots_by_name
from games.engine.old_men_of_the_forest import ENGINE

OPTION_WORDS = {
    "allow_five": OptionWords(
        "Allow 5 players", "An unofficial fifth seat (the game is made for 3 or 4)."
    ),
    "deforestation_penalty": OptionWords(
        "Deforestation cards at the end",
        "What each deforestation card a player still owns costs at the end.",
        (
            Choice("additional", "Costs 3 points each", "2 more than an ordinary card."),
            Choice("replace", "Costs 2 points each"),
        ),
    ),
    "games": OptionWords(
        "Games",
        "How many games to play (the publisher suggests 2); totals add up and everything "
        "is dealt again.",
    ),
}

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyOldMenBot(), ExpertOldMenBot()),
    conformance=ConformanceHints(playouts=100),
    bot_notes={
        "random": BotNote(
            "Plays a uniformly random legal move.",
            Strength(against="greedy", margin=-5.68, win_rate=0.144, players=3, deals=200),
        ),
        "greedy": BotNote(
            "Takes the cards that bring its collection closest to an orang-utan of the layout.",
            Strength(against="random", margin=11.36, win_rate=0.712, players=3, deals=200),
        ),
        "expert": BotNote(
            "Counts the cards played face up and plays its legal moves out over sampled deals "
            "of the unseen cards, dropping the worse half each round.",
            Strength(against="greedy", margin=8.25, win_rate=0.733, players=3, deals=40),
        ),
    },
    option_words=OPTION_WORDS,
)
