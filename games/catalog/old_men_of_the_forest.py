"""Old Men of the Forest: the generic page, a random, a greedy and an expert bot."""

from __future__ import annotations

from games.bots.base import RandomBot
from games.bots.old_men_of_the_forest import ExpertOldMenBot, GreedyOldMenBot
from games.catalog.record import ConformanceHints, GameRecord, bots_by_name
from games.engine.old_men_of_the_forest import ENGINE

RECORD = GameRecord(
    engine=ENGINE,
    bots=bots_by_name(RandomBot(), GreedyOldMenBot(), ExpertOldMenBot()),
    conformance=ConformanceHints(playouts=100),
)
