"""Hols der Geier: the sealed-bid card table with mice and vultures, a random, a greedy and an
expert bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.hols_der_geier import ExpertHolsBot, GreedyHolsBot
from games.catalog.record import ConformanceHints, GameRecord, WebDrawing, bots_by_name
from games.engine.hols_der_geier import ENGINE

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyHolsBot(), ExpertHolsBot()),
    conformance=ConformanceHints(
        step_bound=lambda state: int(state["deals"]) * int(state["turns"]),
        prizes_taken=lambda state: [sum(cards) for cards in state["taken"]],
        sealed_bid_view=True,
    ),
    web=WebDrawing(layout="cards", prize_faces="mice_and_vultures"),
)
