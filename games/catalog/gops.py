"""GOPS: the sealed-bid card table, a random, a greedy and an expert bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.gops import ExpertGopsBot, GreedyGopsBot
from games.catalog.record import (
    BotNote,
    ConformanceHints,
    GameRecord,
    Strength,
    WebDrawing,
    bots_by_name,
)
from games.engine.gops import ENGINE

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
)
