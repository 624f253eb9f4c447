"""What every engine shares: its metadata, schema-checked options, the checks that open
``apply``, and the defaults most games keep (echoed moves, a full history, a ranking by score).

An engine subclasses ``BaseEngine[ItsState]`` and works on its own ``TypedDict`` state, so that
mypy checks the rules against the real keys; the JSON stored for a match is that dict as it is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, TypedDict, TypeVar, cast

import jsonschema

from cardgames.engines import options as opts
from cardgames.engines import ranking
from cardgames.engines.protocol import IllegalMove, Move, Outcome, ToAct


class SeatedState(TypedDict):
    """The keys every engine's state holds (besides ``game``, ``options`` and ``history``)."""

    players: int
    step: int
    over: bool


GameStateT = TypeVar("GameStateT", bound=SeatedState)
TypedMoveT = TypeVar("TypedMoveT", bound=Mapping[str, object])


class BaseEngine(ABC, Generic[GameStateT]):
    slug: str
    name: str
    min_players: int
    max_players: int
    rules_version: str
    #: JSON Schema of the options, every property with its default.
    options_schema: dict[str, Any]
    #: The default of the game's ``history`` option; None for games without one (always full).
    history_default: ClassVar[str | None] = None
    validator: ClassVar[jsonschema.Draft202012Validator]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if hasattr(cls, "options_schema"):  # not on families such as SealedBidEngine
            cls.validator = jsonschema.Draft202012Validator(cls.options_schema)

    # --- setup ---------------------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Schema and seat count only; games with further checks override this."""
        return opts.validated_options(
            self.validator,
            self.options_schema,
            options,
            slug=self.slug,
            players=players,
            low=self.min_players,
            high=self.max_players,
        )

    # --- acting --------------------------------------------------------------------------------

    @abstractmethod
    def to_act(self, state: GameStateT) -> ToAct | None: ...

    @abstractmethod
    def check_move(self, state: GameStateT, seat: int, move: Move) -> None: ...

    def checked_step(self, state: GameStateT, moves: Mapping[int, Move]) -> tuple[int, ...]:
        """The acting seats, once ``moves`` holds exactly one legal move for each of them."""
        acting = self.to_act(state)
        if acting is None:
            raise IllegalMove("game_over")
        check_step_moves(moves, acting.seats)
        for seat in acting.seats:
            self.check_move(state, seat, moves[seat])
        return acting.seats

    # --- reading -------------------------------------------------------------------------------

    @abstractmethod
    def scores(self, state: GameStateT) -> list[int]: ...

    def outcome(self, state: GameStateT, forfeited: frozenset[int] = frozenset()) -> Outcome | None:
        """Ranked by score alone, equal top scores sharing the win."""
        if not state["over"]:
            return None
        totals = self.scores(state)
        keys: list[ranking.SortKey] = [(total,) for total in totals]
        return Outcome(
            scores=tuple(totals),
            winners=ranking.top_seats(keys, forfeited),
            ranking=ranking.rank(keys, forfeited),
        )

    def echoes(self, state: GameStateT, move: Move) -> bool:
        return True

    def history_mode(self, options: Mapping[str, Any]) -> str:
        if self.history_default is None:
            return "full"
        return str(options.get("history", self.history_default))


def is_seat(state: SeatedState, seat: object) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state["players"]


def check_step_moves(moves: Mapping[int, Move], seats: Sequence[int]) -> None:
    """IllegalMove unless ``moves`` holds exactly one move for each of ``seats``."""
    given = set(moves)
    missing = sorted(set(seats) - given)
    extra = sorted(given - set(seats), key=repr)
    if missing:
        raise IllegalMove("missing_moves", seats=str(missing))
    if extra:
        raise IllegalMove("seats_not_to_act", seats=str(extra))


def json_moves(moves: list[TypedMoveT]) -> list[Move]:
    """Typed moves as the protocol hands them out: plain JSON objects (the same list)."""
    return cast(list[Move], moves)
