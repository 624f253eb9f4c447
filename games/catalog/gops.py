"""GOPS: the sealed-bid card table, a random, a greedy and an expert bot."""

from __future__ import annotations

from cardgames.bots.base import RandomBot
from cardgames.bots.gops import ExpertGopsBot, GreedyGopsBot
from cardgames.engines.gops import ENGINE
from games.catalog.option_words import Choice, OptionWords, gettext_noop
from games.catalog.record import (
    BotNote,
    ConformanceHints,
    GameRecord,
    Strength,
    WebDrawing,
    bots_by_name,
)

OPTION_WORDS = {
    "num_cards": OptionWords(
        gettext_noop("Cards in each hand"),
        gettext_noop("Every player holds the cards 1 to this number, and as many prizes come up."),
    ),
    "prize_order": OptionWords(
        gettext_noop("Order of the prizes"),
        gettext_noop("The order in which the prize cards come up."),
        (
            Choice("random", gettext_noop("Shuffled")),
            Choice("ascending", gettext_noop("Lowest first")),
            Choice("descending", gettext_noop("Highest first")),
        ),
    ),
    "tie_rule": OptionWords(
        gettext_noop("When the highest bids tie"),
        gettext_noop("What happens to the pot when two or more players tie with the highest bid."),
        (
            Choice(
                "penguin",
                gettext_noop("Penguin rule"),
                gettext_noop(
                    "Two players: the pot stays for the next turn. Three players: if two tie, "
                    "the third player takes it; if all three tie, it stays."
                ),
            ),
            Choice(
                "carry",
                gettext_noop("Pot stays for next turn"),
                gettext_noop("Any tie carries the pot over."),
            ),
            Choice(
                "discard",
                gettext_noop("Pot is thrown away"),
                gettext_noop("Any tie discards the pot."),
            ),
        ),
    ),
    "final_tie": OptionWords(
        gettext_noop("A tie on the last turn"),
        gettext_noop("Where a tie would carry the pot over but no turn is left."),
        (
            Choice("discard", gettext_noop("Nobody takes the pot")),
            Choice(
                "to_game_winner",
                gettext_noop("The leader takes the pot"),
                gettext_noop("The player ahead on the other cards takes it (a tie there: nobody)."),
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
            gettext_noop("Bids a uniformly random card of its hand."),
            Strength(against="greedy", margin=-27.48, win_rate=0.083, players=2, deals=200),
        ),
        "greedy": BotNote(
            gettext_noop("Bids the card nearest the pot's value."),
            Strength(against="random", margin=27.48, win_rate=0.917, players=2, deals=200),
        ),
        "expert": BotNote(
            gettext_noop(
                "Equilibrium play: solved exactly for the last 6 cards, a fitted estimate before."
            ),
            Strength(against="greedy", margin=3.33, win_rate=0.569, players=2, deals=500),
        ),
    },
    option_words=OPTION_WORDS,
)
