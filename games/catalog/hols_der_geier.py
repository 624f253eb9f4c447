"""Hols der Geier: the sealed-bid card table with mice and vultures, a random, a greedy and an
expert bot."""

from __future__ import annotations

from cardgames.bots.base import RandomBot
from cardgames.bots.hols_der_geier import ExpertHolsBot, GreedyHolsBot
from cardgames.engines.hols_der_geier import ENGINE
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
    "two_player_variant": OptionWords(
        gettext_noop("Two-player variant"),
        gettext_noop(
            "Three of each player's cards and three point cards are put aside unseen; 12 turns. "
            "Automatic: on with 2 players, off with more."
        ),
        (
            Choice(None, gettext_noop("Automatic")),
            Choice(True, gettext_noop("On (2 players only)")),
            Choice(False, gettext_noop("Off")),
        ),
    ),
    "final_tiebreak": OptionWords(
        gettext_noop("Equal final totals"),
        gettext_noop("Who wins when players end on the same total."),
        (
            Choice(
                "cancel",
                gettext_noop("Equal totals cancel out"),
                gettext_noop(
                    "Tied totals are ignored; the highest total held by one player alone wins, "
                    "else nobody does."
                ),
            ),
            Choice(
                "highest_mouse",
                gettext_noop("Highest mouse card wins"),
                gettext_noop("Ties go to the player holding the highest single mouse card."),
            ),
            Choice("shared", gettext_noop("Tied leaders share the win")),
        ),
    ),
    "deals": OptionWords(
        gettext_noop("Deals"), gettext_noop("How many deals to play; the totals add up.")
    ),
    "history": OptionWords(
        gettext_noop("Earlier turns"),
        gettext_noop("Whether the played cards of earlier turns stay on view."),
        (
            Choice("full", gettext_noop("Always on view")),
            Choice(
                "table_only",
                gettext_noop("Remember them yourself"),
                gettext_noop("Only each player's last card shows, as at a real table."),
            ),
        ),
    ),
}

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyHolsBot(), ExpertHolsBot()),
    conformance=ConformanceHints(
        step_bound=lambda state: int(state["deals"]) * int(state["turns"]),
        prizes_taken=lambda state: [sum(cards) for cards in state["taken"]],
        sealed_bid_view=True,
    ),
    web=WebDrawing(layout="cards", prize_faces="mice_and_vultures"),
    bot_notes={
        "random": BotNote(
            gettext_noop("Bids a uniformly random card of its hand."),
            Strength(against="greedy", margin=-10.15, win_rate=0.223, players=2, deals=200),
        ),
        "greedy": BotNote(
            gettext_noop(
                "Spends high cards on big mice and keeps clear of the lowest bid on vultures."
            ),
            Strength(against="random", margin=10.15, win_rate=0.755, players=2, deals=200),
        ),
        "expert": BotNote(
            gettext_noop(
                "Plays each bid out against sampled hands of the others, minding cancellation and "
                "the carried pot; mixes among the near-best bids."
            ),
            Strength(against="greedy", margin=29.5, win_rate=0.919, players=4, deals=40),
        ),
    },
    option_words=OPTION_WORDS,
)
