"""The protocol every game engine implements, and the value types it trades in.

Engines are pure: no Django, no I/O, no clock, no global random. States and moves are plain
JSON values (dicts, lists, str, int, bool, None) so they can be stored and compared as they are.
A match advances in steps; each step is the set of seats that must act now, all at once
(simultaneous) or one (turn). ``apply`` receives every acting seat's move at once and returns
the next state together with what the resolution reveals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol

from typing_extensions import TypeVar

from cardgames.engines.messages import Reason
from cardgames.engines.rng import DealRng

JSON = Any
#: A state as stored: a JSON object. Each engine reads it as its own ``TypedDict``.
State = dict[str, Any]
#: A move as a client sends it: any JSON object until ``check_move`` has accepted it.
Move = dict[str, Any]

#: The state type an engine works on. Callers outside the engine see ``Engine`` (the default,
#: ``Any``) and pass the JSON they stored; each engine checks its rules on its own TypedDict.
StateT = TypeVar("StateT", default=Any)


class EngineError(Exception):
    """Base class for errors an engine raises about its input."""


class InvalidOptions(EngineError):
    """Options that do not fit the game; ``errors`` maps a field path to messages (each a
    ``messages.Reason``)."""

    def __init__(self, errors: Mapping[str, list[str]]) -> None:
        super().__init__("invalid options")
        self.errors: dict[str, list[str]] = dict(errors)


class IllegalMove(EngineError):
    """A move that the rules do not allow now: ``reason`` names one of ``messages.MESSAGES``
    with its parameters. The message never names hidden values."""

    def __init__(self, message_id: str, **params: object) -> None:
        self.reason = Reason(message_id, **params)
        super().__init__(self.reason)


def is_template(move: Move) -> bool:
    """Whether a ``legal_moves`` entry is a choose-k template (``{"life": {"choose": 3,
    "from": [...]}}``) rather than a move that can be sent as it is."""
    return any(isinstance(v, dict) and set(v) == {"choose", "from"} for v in move.values())


@dataclass(frozen=True)
class ToAct:
    seats: tuple[int, ...]
    simultaneous: bool


@dataclass(frozen=True)
class Resolution(Generic[StateT]):
    """The result of applying one step: the next state and what the rules reveal.

    ``public`` is readable by every viewer; ``private`` adds data for single seats.
    """

    state: StateT
    public: dict[str, Any]
    private: dict[int, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    ranking: tuple[tuple[int, ...], ...]


class Engine(Protocol[StateT]):
    slug: str
    name: str
    min_players: int
    max_players: int
    rules_version: str
    #: JSON Schema of the options, every property with its default.
    options_schema: dict[str, Any]

    def validate_options(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Return the options with defaults filled, or raise InvalidOptions."""
        ...

    def initial_state(self, players: int, options: Mapping[str, Any], rng: DealRng) -> StateT:
        """Draw everything the match will ever need from ``rng``; nothing draws later."""
        ...

    def to_act(self, state: StateT) -> ToAct | None:
        """Who must act now, or None when the game is over."""
        ...

    def legal_moves(self, state: StateT, seat: int) -> list[Move]:
        """The seat's legal moves now ([] when it is not to act); choose-k moves as templates."""
        ...

    def check_move(self, state: StateT, seat: int, move: Move) -> None:
        """Raise IllegalMove unless ``move`` is legal for ``seat`` now."""
        ...

    def apply(self, state: StateT, moves: Mapping[int, Move]) -> Resolution[StateT]:
        """Resolve the current step with one move for every acting seat."""
        ...

    def view(self, state: StateT, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) may see; the only way state reaches a client."""
        ...

    def scores(self, state: StateT) -> list[int]:
        """Current score per seat."""
        ...

    def outcome(self, state: StateT, forfeited: frozenset[int] = frozenset()) -> Outcome | None:
        """Final scores, winners and ranking once over (forfeited seats last, never winners)."""
        ...

    def timeout_move(self, state: StateT, seat: int) -> Move:
        """A legal move made for a seat that did not act (forfeited or timed out)."""
        ...

    def shuffle_hidden(self, state: StateT, seat: int | None, rng: DealRng) -> StateT:
        """A state that ``seat`` cannot tell apart from ``state``: every value hidden from it
        redrawn. Tests use it to prove that views carry no hidden information."""
        ...

    def echoes(self, state: StateT, move: Move) -> bool:
        """Whether ``move`` may be shown back to its own seat (``your_move``) and compared with
        a re-post. False for moves the rules keep even from their owner (Xato's life cards)."""
        ...

    def history_mode(self, options: Mapping[str, Any]) -> str:
        """``full`` or ``table_only``: whether past public actions stay readable."""
        ...
