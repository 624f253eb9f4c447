"""What the project knows about one game, written once: a ``GameRecord``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from cardgames.bots.base import Bot
from cardgames.engines.protocol import Engine, State
from games.catalog.option_words import OptionWords, options_schema_in_words

#: ``cards``: the sealed-bid card table (pot, hands of numbered cards, bids revealed per step);
#: ``generic``: the page that draws any view and any legal move.
Layout = Literal["cards", "generic"]
#: ``mice_and_vultures``: prize cards are mice (positive) or vultures (negative), and the pot
#: says which bid takes it (the view's ``mode``); ``plain``: numbered prize cards.
PrizeFaces = Literal["plain", "mice_and_vultures"]


@dataclass(frozen=True)
class ConformanceHints:
    """What the conformance test (tests/engine/test_conformance.py) needs to know per game."""

    #: Random playouts; longer games play fewer (their own engine tests add more).
    playouts: int = 200
    #: The most steps a game with this initial state may take; None: the test's own bound.
    step_bound: Callable[[State], int] | None = None
    #: Option values tried instead of a schema's bounds, where the full range is slow to play
    #: out at random (the engine tests cover the full ranges).
    option_choices: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    #: The scores implied by the prize cards each seat holds, when the game scores that way.
    prizes_taken: Callable[[State], list[int]] | None = None
    #: Views follow the sealed-bid card layout of docs/api.md ("Read").
    sealed_bid_view: bool = False
    #: Hidden values are redrawn in more than one of this many view checks (a mostly public
    #: game has little to redraw).
    redrawn_one_in: int = 2


@dataclass(frozen=True)
class WebDrawing:
    """How the browser client (web/static/web/match.js) draws the game's match page."""

    layout: Layout = "generic"
    prize_faces: PrizeFaces = "plain"

    def as_json(self) -> dict[str, str]:
        return {"layout": self.layout, "prize_faces": self.prize_faces}


@dataclass(frozen=True)
class Strength:
    """A bot's strength as measured in the arena (bench/arena.py, docs/bots.md): its mean
    margin and win rate against ``against`` over ``deals`` duplicate deals of ``players``."""

    against: str
    margin: float
    win_rate: float
    players: int
    deals: int

    def as_json(self) -> dict[str, Any]:
        return {
            "against": self.against,
            "margin": self.margin,
            "win_rate": self.win_rate,
            "players": self.players,
            "deals": self.deals,
        }


@dataclass(frozen=True)
class BotNote:
    """What players are told about a bot when they choose an opponent."""

    #: One line.
    description: str
    #: None until measured.
    strength: Strength | None = None


@dataclass(frozen=True)
class GameRecord:
    engine: Engine
    #: The bots that can play it, by name (see ``bots_by_name``).
    bots: Mapping[str, Bot]
    conformance: ConformanceHints = field(default_factory=ConformanceHints)
    web: WebDrawing = field(default_factory=WebDrawing)
    #: Per bot name: its description and measured strength (``GET /games``).
    bot_notes: Mapping[str, BotNote] = field(default_factory=dict)
    #: Per option: its plain title, description and choices (``GET /games``, the lobby).
    option_words: Mapping[str, OptionWords] = field(default_factory=dict)
    #: Sentences the engine's views carry as they are (English in the API), which the web
    #: client shows in the reader's language (marked for the catalogues here).
    view_texts: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        return self.engine.slug

    def options_schema(self) -> dict[str, Any]:
        """The engine's option schema with every option in plain words, as clients get it."""
        return options_schema_in_words(self.engine.options_schema, self.option_words)

    def bot_note(self, name: str) -> BotNote:
        """The bot's note; a bot without one is described by its class docstring's first
        line and has no measured strength."""
        note = self.bot_notes.get(name)
        if note is not None:
            return note
        doc = (type(self.bots[name]).__doc__ or "").strip()
        return BotNote(description=doc.splitlines()[0] if doc else name)


def bots_by_name(*bots: Bot) -> dict[str, Bot]:
    names = [bot.name for bot in bots]
    if len(set(names)) != len(names):
        raise ValueError(f"bot names repeat: {names}")
    return {bot.name: bot for bot in bots}
