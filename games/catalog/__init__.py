"""Every game, registered once: its engine, its bots, its conformance hints and how the web
client draws it (``GameRecord``). The layer above the rules and the bots
(``cardgames.engines``, ``cardgames.bots``); neither imports it.

Adding a game: its engine and bot modules, a module here holding its ``RECORD``, and one line
in ``RECORDS``.
"""

from __future__ import annotations

from collections.abc import Mapping

from cardgames.bots.base import Bot
from cardgames.engines.protocol import Engine
from games.catalog import gops, hols_der_geier, memory, old_men_of_the_forest, xato
from games.catalog.option_words import words_in
from games.catalog.record import ConformanceHints, GameRecord, WebDrawing

#: In the order ``GET /games`` lists them.
RECORDS: tuple[GameRecord, ...] = (
    gops.RECORD,
    hols_der_geier.RECORD,
    old_men_of_the_forest.RECORD,
    xato.RECORD,
    memory.RECORD,
)

GAMES: Mapping[str, GameRecord] = {record.slug: record for record in RECORDS}


def get_record(slug: str) -> GameRecord | None:
    return GAMES.get(slug)


def get_engine(slug: str) -> Engine | None:
    record = GAMES.get(slug)
    return record.engine if record else None


def engines() -> list[Engine]:
    return [record.engine for record in RECORDS]


def bots_of(game: str) -> Mapping[str, Bot]:
    """The bots of a game by name; none for an unknown game."""
    record = GAMES.get(game)
    return record.bots if record else {}


def get_bot(game: str, name: str) -> Bot | None:
    return bots_of(game).get(name)


def catalogue_texts() -> list[str]:
    """Every text the catalogue shows players (options in words, bot notes), in English: the
    web client's pages carry them in the reader's language (web/context.py)."""
    texts: list[str] = []
    for record in RECORDS:
        texts += words_in(record.option_words)
        texts += [record.bot_note(name).description for name in sorted(record.bots)]
        texts += record.view_texts
    return list(dict.fromkeys(texts))


def web_drawings() -> dict[str, dict[str, str]]:
    """How the web client draws each game, by slug (JSON for the match page)."""
    return {record.slug: record.web.as_json() for record in RECORDS}


__all__ = [
    "GAMES",
    "RECORDS",
    "ConformanceHints",
    "GameRecord",
    "WebDrawing",
    "bots_of",
    "catalogue_texts",
    "engines",
    "get_bot",
    "get_engine",
    "get_record",
    "web_drawings",
]
