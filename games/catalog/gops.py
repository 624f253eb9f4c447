"""GOPS: the sealed-bid card table, a random, a greedy and an expert bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.gops import ExpertGopsBot, GreedyGopsBot
from games.catalog.option_words import Choice, OptionWords
from games.catalog.record import (
    BotNote,
    ConformanceHints,
    GameRecord,
    Strength,
    WebDrawing,
    bots_by_name,
)
from games.engine.gops import ENGINE

OPTION_WORDS = {
    "num_cards": OptionWords(
        "Cards in each hand",
        "Every player holds the cards 1 to this number, and as many prizes come up.",
    ),
    "prize_order": OptionWords(
        "Order of the prizes",
        "The order in which the prize cards come up.",
        (
            Choice("random", "Shuffled"),
            Choice("ascending", "Lowest first"),
            Choice("descending", "Highest first"),
        ),
    ),
    "tie_rule": OptionWords(
        "When the highest bids tie",
        "What happens to the pot when two or more players tie with the highest bid.",
        (
            Choice(
                "penguin",
                "Penguin rule",
                "Two players: the pot stays for the next turn. Three players: if two tie, "
                "the third player takes it; if all three tie, it stays.",
            ),
            Choice("carry", "Pot stays for next turn", "Any tie carries the pot over."),
            Choice("discard", "Pot is thrown away", "Any tie discards the pot."),
        ),
    ),
    "final_tie": OptionWords(
        "A tie on the last turn",
        "Where a tie would carry the pot over but no turn is left.",
        (
            Choice("discard", "Nobody takes the pot"),
            Choice(
                "to_game_winner",
                "The leader takes the pot",
                "The player ahead on the other cards takes it (a tie there: nobody).",
            ),
        ),
    ),
}

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyGopsBot(), ExpertGopsBot()),
    conformance=ConformanceHints(
        step_bound=lambda state: int(state["options"]["num_cards"]),
        prizes_taken=lambda state: [sum(cards) for cards in state["won"]],
        sealed_bid_view=True,
    ),
    web=WebDrawing(layout="cards"),
    bot_notes={
        "random": BotNote(
            "Bids a uniformly random card of its hand.",
            Strength(against="greedy", margin=-27.48, win_rate=0.083, players=2, deals=200),
        ),
        "greedy": BotNote(
            "Bids the card nearest the pot's value.",
            Strength(against="random", margin=27.48, win_rate=0.917, players=2, deals=200),
        ),
        "expert": BotNote(
            "Equilibrium play: solved exactly for the last 6 cards, a fitted estimate before.",
            Strength(against="greedy", margin=3.33, win_rate=0.569, players=2, deals=500),
        ),
    },
    option_words=OPTION_WORDS,
)
