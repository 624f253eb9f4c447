"""Hols der Geier: the sealed-bid card table with mice and vultures, a random and a greedy bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.hols_der_geier import GreedyHolsBot
from games.catalog.record import (
    BotNote,
    ConformanceHints,
    GameRecord,
    Strength,
    WebDrawing,
    bots_by_name,
)
from games.engine.hols_der_geier import ENGINE

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyHolsBot()),
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
    },
)
