"""Hols der Geier: the sealed-bid card table with mice and vultures, a random, a greedy and an
expert bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.hols_der_geier import ExpertHolsBot, GreedyHolsBot
from games.catalog.option_words import Choice, OptionWords
from games.catalog.record import (
    BotNote,
    ConformanceHints,
    GameRecord,
    Strength,
    WebDrawing,
    bots_by_name,
)
from games.engine.hols_der_geier import ENGINE

OPTION_WORDS = {
    "two_player_variant": OptionWords(
        "Two-player variant",
        "Three of each player's cards and three point cards are put aside unseen; 12 turns. "
        "Automatic: on with 2 players, off with more.",
        (
            Choice(None, "Automatic"),
            Choice(True, "On (2 players only)"),
            Choice(False, "Off"),
        ),
    ),
    "final_tiebreak": OptionWords(
        "Equal final totals",
        "Who wins when players end on the same total.",
        (
            Choice(
                "cancel",
                "Equal totals cancel out",
                "Tied totals are ignored; the highest total held by one player alone wins, "
                "else nobody does.",
            ),
            Choice(
                "highest_mouse",
                "Highest mouse card wins",
                "Ties go to the player holding the highest single mouse card.",
            ),
            Choice("shared", "Tied leaders share the win"),
        ),
    ),
    "deals": OptionWords("Deals", "How many deals to play; the totals add up."),
    "history": OptionWords(
        "Earlier turns",
        "Whether the played cards of earlier turns stay on view.",
        (
            Choice("full", "Always on view"),
            Choice(
                "table_only",
                "Remember them yourself",
                "Only each player's last card shows, as at a real table.",
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
            "Bids a uniformly random card of its hand.",
            Strength(against="greedy", margin=-10.15, win_rate=0.223, players=2, deals=200),
        ),
        "greedy": BotNote(
            "Spends high cards on big mice and keeps clear of the lowest bid on vultures.",
            Strength(against="random", margin=10.15, win_rate=0.755, players=2, deals=200),
        ),
        "expert": BotNote(
            "Plays each bid out against sampled hands of the others, minding cancellation and "
            "the carried pot; mixes among the near-best bids.",
            Strength(against="greedy", margin=29.5, win_rate=0.919, players=4, deals=40),
        ),
    },
    option_words=OPTION_WORDS,
)
