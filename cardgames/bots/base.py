"""The protocol of a bot strategy: a pure function of what its seat may see.

A bot receives only its seat's view (the engine's ``view(state, seat)``) and its legal moves,
never the state; it keeps what it wants to remember between steps in ``memory`` (stored in the
seat row) and draws on its own random generator, never on the deal stream. All of it comes in
one ``BotContext``.

A bot also watches the match: after the match starts and after every step resolves, each seat
a bot plays is shown an ``Observation`` (the seat's view then, and what the step revealed to
that seat) whether or not it must move, and ``observe`` returns its new memory. The server and
the arena build observations with the same function, ``cardgames.bots.observe.observation_for``.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from cardgames.engines.protocol import Move, is_template

NO_OPTIONS: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}


@dataclass(frozen=True)
class BotContext:
    """What a bot may know when it chooses a move for ``seat``."""

    seat: int
    view: Mapping[str, Any]
    legal_moves: list[Move]
    memory: Mapping[str, Any]
    options: Mapping[str, Any]
    rng: random.Random


@dataclass(frozen=True)
class Observation:
    """What ``seat`` may read after the match starts or a step resolves.

    ``view``: the engine's ``view(state, seat)`` after it. ``events``: what the seat may read
    of what just happened; for a resolved step, the step's ``step_resolved`` data as redacted
    for this seat (the public data merged with this seat's private part); at the start, empty.
    """

    seat: int
    view: Mapping[str, Any]
    events: list[dict[str, Any]]
    memory: Mapping[str, Any]
    options: Mapping[str, Any]


@dataclass(frozen=True)
class Decision:
    move: Move
    memory: dict[str, Any] = field(default_factory=dict)


class Bot(Protocol):
    name: str
    #: JSON Schema of the bot's options, every property with its default.
    options_schema: dict[str, Any]

    def choose(self, ctx: BotContext) -> Decision: ...

    def observe(self, obs: Observation) -> dict[str, Any]:
        """The new memory after the match started or a step resolved (``obs``)."""
        ...


class BaseBot(ABC):
    """The defaults every bot shares: a name (set by each subclass), no options, and watching
    without remembering anything new."""

    name: str
    options_schema: dict[str, Any] = NO_OPTIONS

    @abstractmethod
    def choose(self, ctx: BotContext) -> Decision: ...

    def observe(self, obs: Observation) -> dict[str, Any]:
        """The new memory after the match started or a step resolved; by default, unchanged.
        Keep it small and JSON-serialisable: it is stored in the seat row."""
        return dict(obs.memory)


class RandomBot(BaseBot):
    """A uniformly random legal move."""

    name = "random"

    def choose(self, ctx: BotContext) -> Decision:
        move = concrete(ctx.rng.choice(ctx.legal_moves), ctx.rng)
        return Decision(move=move, memory=dict(ctx.memory))


def concrete(move: Move, rng: random.Random) -> Move:
    """A legal move from a ``legal_moves`` entry: a choose-k template such as
    ``{"life": {"choose": 3, "from": [...]}}`` becomes a random choice of k of them."""
    if not is_template(move):
        return move
    result: Move = {}
    for key, value in move.items():
        if isinstance(value, dict) and set(value) == {"choose", "from"}:
            result[key] = rng.sample(list(value["from"]), int(value["choose"]))
        else:
            result[key] = value
    return result


def nearest_card(legal_moves: list[Move], target: float, rng: random.Random) -> Move:
    """The legal ``{"card": n}`` closest to ``target``; ties broken at random."""
    best = min(abs(move["card"] - target) for move in legal_moves)
    return rng.choice([move for move in legal_moves if abs(move["card"] - target) == best])
