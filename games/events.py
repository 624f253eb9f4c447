"""The event catalogue: every event a match records, the shape of its data, and who may read it.

A match's history is an append-only list of events (``MatchEvent`` rows). Each type is declared
here once, with a ``TypedDict`` for its public ``data`` and, where the rules give single seats
more than everyone else, one for the per-seat ``private`` part. Services emit events only
through ``MatchChange.emit(EVENT_TYPE, data, …)``, so mypy checks the payload; with
``FACEDOWN_CHECK_EVENTS`` on (the test suite) every payload is also checked against the JSON
Schema derived from its ``TypedDict``.

``event_for`` is the one redaction every reader goes through: the API's event feed, the
operator console, the audit transcript (and streams and webhooks to come).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import (
    Any,
    Generic,
    Literal,
    Protocol,
    TypedDict,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

import jsonschema

# --- payloads ----------------------------------------------------------------------------------


class SeatEntry(TypedDict):
    index: int
    player: str | None
    bot: str | None
    accepted: bool


class MatchCreated(TypedDict):
    game: str
    seats: list[SeatEntry]


class MatchStarted(TypedDict):
    seats: list[SeatEntry]


class SeatJoined(TypedDict):
    seat: int
    player: str


class SeatRef(TypedDict):
    seat: int


class StepOpened(TypedDict):
    kind: Literal["simultaneous", "turn", "reveal"]
    to_act: list[int]
    deadline: str | None


ForfeitReason = Literal["resigned", "timeout", "illegal_reveal"]
FinishReason = Literal["completed", "forfeit"]


class SeatForfeited(TypedDict):
    seat: int
    reason: ForfeitReason


class Timeout(TypedDict):
    seat: int
    policy: Literal["auto_move", "forfeit"]


class MatchResult(TypedDict):
    scores: list[int]
    winners: list[int]
    ranking: list[list[int]]
    reason: FinishReason | Literal["aborted"]


class RatingChange(TypedDict):
    """A human seat's new rating after a rated match (openskill; docs/api.md, "Ratings"):
    the leaderboard's ordinal (mu - 3 sigma) before and after, and the new mu and sigma."""

    seat: int
    before: float
    after: float
    mu: float
    sigma: float


class MatchFinished(MatchResult):
    #: None when the match is unrated (or has no human seat).
    ratings: list[RatingChange] | None


class RematchCreated(TypedDict):
    match: str
    seat: int


class _MatchAbortedAlways(TypedDict):
    operator: str | None
    reason: str
    seat: int | None


class MatchAborted(_MatchAbortedAlways, total=False):
    #: Why an invitee declined, when they said (the challenges' reasons, docs/programs.md).
    decline_reason: str


ProposalKind = Literal["pause", "abort"]


class ProposalMade(TypedDict):
    proposal: int
    kind: ProposalKind
    seat: int
    #: A pause's end (null for an abort).
    until: str | None
    expires_at: str


class ProposalAnswered(TypedDict):
    proposal: int
    kind: ProposalKind
    proposer: int
    #: The seat that answered.
    seat: int
    answer: Literal["accepted", "declined", "withdrawn"]
    #: The proposal's status after this answer: still open until every voter accepted.
    status: Literal["open", "accepted", "declined", "withdrawn"]


class MatchPaused(TypedDict):
    #: The agreed proposal; null for a pause of the match's tournament, set by its organiser.
    proposal: int | None
    until: str


class MatchResumed(TypedDict):
    #: The end the pause had.
    was_until: str


class DeadlineExtended(TypedDict):
    operator: str
    reason: str
    seconds: int
    deadline: str


class OperatorAction(TypedDict):
    operator: str
    reason: str


class SeatVacation(TypedDict):
    seat: int
    #: Null: the vacation ended.
    until: str | None


class AutoVacation(TypedDict):
    seat: int
    until: str


class SeatReplaced(TypedDict):
    seat: int
    operator: str
    reason: str
    bot: str


class SeatReturned(TypedDict):
    seat: int
    operator: str
    reason: str


class SeatOffered(TypedDict):
    offer: int
    seat: int
    #: The invited user's name; null for an open seat anyone may take.
    invitee: str | None


class SeatOfferClosed(TypedDict):
    offer: int
    seat: int
    status: Literal["declined", "withdrawn", "closed"]


class SeatTakenOver(TypedDict):
    offer: int
    seat: int
    #: The substitute's name.
    player: str
    #: The first step the substitute plays (the step under way is the stand-in's).
    from_step: int


# --- the catalogue -----------------------------------------------------------------------------

D = TypeVar("D")


@dataclass(frozen=True, eq=False)
class EventType(Generic[D]):
    name: str
    data: Any  # the TypedDict class of D (dict: the game defines it)
    doc: str
    #: Each seat's extra data, merged into ``data`` for that seat only (never for anyone else).
    private: type[Mapping[str, Any]] | None = None
    #: False: the time is never shown (it would tell when a seat submitted), not even in audits.
    show_at: bool = True
    #: Whether the game's ``history: table_only`` option may hide it from later readers.
    may_be_table_only: bool = False

    def __call__(
        self, data: D, *, private: Mapping[int, Mapping[str, Any]] | None = None
    ) -> NewEvent:
        """An event of this type, to be emitted (``MatchChange.emit``)."""
        return NewEvent(self, data, private or {})

    @property
    def game_defined(self) -> bool:
        """The data's shape is the game's own (its engine module documents it)."""
        return self.data is dict


@dataclass(frozen=True)
class NewEvent:
    type: EventType[Any]
    data: Any
    private: Mapping[int, Mapping[str, Any]]


MATCH_CREATED: EventType[MatchCreated] = EventType(
    "match_created", MatchCreated, "The match was created; its seats."
)
SEAT_JOINED: EventType[SeatJoined] = EventType(
    "seat_joined", SeatJoined, "A player took an open seat or accepted an invitation."
)
SEAT_LEFT: EventType[SeatRef] = EventType(
    "seat_left", SeatRef, "A player left their seat before the start."
)
MATCH_STARTED: EventType[MatchStarted] = EventType(
    "match_started", MatchStarted, "Every seat was filled and accepted: the deal was drawn."
)
STEP_OPENED: EventType[StepOpened] = EventType(
    "step_opened", StepOpened, "A step (or its reveal phase) opened: who acts, and until when."
)
MOVE_SUBMITTED: EventType[SeatRef] = EventType(
    "move_submitted",
    SeatRef,
    "A seat submitted its sealed move (only with disclose_submitted; never the move itself).",
    show_at=False,
)
STEP_RESOLVED: EventType[dict[str, Any]] = EventType(
    "step_resolved",
    dict,
    "The step resolved: what the rules reveal to everyone, and to single seats in private.",
    private=dict,
    may_be_table_only=True,
)
SEAT_FORFEITED: EventType[SeatForfeited] = EventType(
    "seat_forfeited", SeatForfeited, "A seat forfeited (final); a stand-in bot plays it on."
)
TIMEOUT: EventType[Timeout] = EventType("timeout", Timeout, "A seat missed the step's deadline.")
MATCH_FINISHED: EventType[MatchFinished] = EventType(
    "match_finished",
    MatchFinished,
    "The match is over: its result, and the human seats' new ratings if it was rated.",
)
REMATCH_CREATED: EventType[RematchCreated] = EventType(
    "rematch_created",
    RematchCreated,
    "After the finish: the seat that asked for a rematch, and the new match's id.",
)
MATCH_ABORTED: EventType[MatchAborted] = EventType(
    "match_aborted", MatchAborted, "The match ended without a result."
)
PROPOSAL_MADE: EventType[ProposalMade] = EventType(
    "proposal_made",
    ProposalMade,
    "A seated player proposed a pause or an abort; every other seated human must accept it.",
)
PROPOSAL_ANSWERED: EventType[ProposalAnswered] = EventType(
    "proposal_answered",
    ProposalAnswered,
    "A seated player accepted or declined the open proposal, or its proposer withdrew it.",
)
MATCH_PAUSED: EventType[MatchPaused] = EventType(
    "match_paused",
    MatchPaused,
    "A pause started: every seated human agreed to it, or the match's tournament paused; no "
    "clock counts until it ends.",
)
MATCH_RESUMED: EventType[MatchResumed] = EventType(
    "match_resumed",
    MatchResumed,
    "The match's tournament resumed before its pause's end: the clocks count again.",
)
DEADLINE_EXTENDED: EventType[DeadlineExtended] = EventType(
    "deadline_extended", DeadlineExtended, "An operator gave the open step more time."
)
DEADLINE_FORCED: EventType[OperatorAction] = EventType(
    "deadline_forced", OperatorAction, "An operator timed the open step out now."
)
SEAT_REPLACED: EventType[SeatReplaced] = EventType(
    "seat_replaced", SeatReplaced, "An operator handed a player's seat to a bot."
)
SEAT_RETURNED: EventType[SeatReturned] = EventType(
    "seat_returned", SeatReturned, "An operator gave a seat back to its player."
)
SEAT_VACATION: EventType[SeatVacation] = EventType(
    "seat_vacation",
    SeatVacation,
    "A seat's player went on vacation (its clock held until then), or came back (null).",
)
AUTO_VACATION: EventType[AutoVacation] = EventType(
    "auto_vacation",
    AutoVacation,
    "A seat's clock ran out and its player's vacation bank took over (an automatic vacation).",
)
SEAT_OFFERED: EventType[SeatOffered] = EventType(
    "seat_offered",
    SeatOffered,
    "A seat its player left (resigned, forfeited, timed out) was offered to a substitute.",
)
SEAT_OFFER_CLOSED: EventType[SeatOfferClosed] = EventType(
    "seat_offer_closed",
    SeatOfferClosed,
    "An offer of a seat ended untaken: declined by its invitee, withdrawn, or the match ended.",
)
SEAT_TAKEN_OVER: EventType[SeatTakenOver] = EventType(
    "seat_taken_over",
    SeatTakenOver,
    "A substitute took the offered seat over: its hand and clock, from the next step.",
)

CATALOGUE: dict[str, EventType[Any]] = {
    event.name: event
    for event in (
        MATCH_CREATED,
        SEAT_JOINED,
        SEAT_LEFT,
        MATCH_STARTED,
        STEP_OPENED,
        MOVE_SUBMITTED,
        STEP_RESOLVED,
        SEAT_FORFEITED,
        TIMEOUT,
        MATCH_FINISHED,
        REMATCH_CREATED,
        MATCH_ABORTED,
        PROPOSAL_MADE,
        PROPOSAL_ANSWERED,
        MATCH_PAUSED,
        MATCH_RESUMED,
        DEADLINE_EXTENDED,
        DEADLINE_FORCED,
        SEAT_REPLACED,
        SEAT_RETURNED,
        SEAT_VACATION,
        AUTO_VACATION,
        SEAT_OFFERED,
        SEAT_OFFER_CLOSED,
        SEAT_TAKEN_OVER,
    )
}


# --- JSON Schemas of the payloads --------------------------------------------------------------


def json_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of a payload annotation (the subset of typing the catalogue uses)."""
    if annotation is dict:  # a game-defined part
        return {"type": "object", "description": "Defined by the game's rules."}
    if is_typeddict(annotation):
        hints = get_type_hints(annotation)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {key: json_schema(value) for key, value in hints.items()},
            "required": sorted(annotation.__required_keys__),
            "additionalProperties": False,
        }
        return schema
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        options = [json_schema(arg) for arg in args]
        return {"anyOf": options}
    if origin is list:
        return {"type": "array", "items": json_schema(args[0])}
    if origin is dict:
        return {"type": "object", "additionalProperties": json_schema(args[1])}
    simple = {int: "integer", str: "string", bool: "boolean", float: "number", type(None): "null"}
    if annotation in simple:
        return {"type": simple[annotation]}
    if annotation is Any or annotation is object:
        return {}
    raise TypeError(f"no JSON Schema for {annotation!r}")


_VALIDATORS: dict[tuple[str, str], jsonschema.Draft202012Validator] = {}


def _validator(event: EventType[Any], part: str) -> jsonschema.Draft202012Validator:
    key = (event.name, part)
    if key not in _VALIDATORS:
        annotation = event.data if part == "data" else event.private
        _VALIDATORS[key] = jsonschema.Draft202012Validator(json_schema(annotation))
    return _VALIDATORS[key]


class InvalidEvent(ValueError):
    """An event that is not in the catalogue, or whose payload has the wrong shape."""


def event_check(
    event: EventType[Any],
    data: Any,
    private: Mapping[int, Any] | None,
    *,
    table_only: bool,
) -> None:
    """Raise ``InvalidEvent`` unless the event is the catalogue's and its payload fits."""
    if CATALOGUE.get(event.name) is not event:
        raise InvalidEvent(f"event type {event.name!r} is not in the catalogue")
    if table_only and not event.may_be_table_only:
        raise InvalidEvent(f"{event.name} is never table-only")
    if private and event.private is None:
        raise InvalidEvent(f"{event.name} has no private part")
    problems = [f"data: {e.message}" for e in _validator(event, "data").iter_errors(data)]
    for seat, part in (private or {}).items():
        problems += [
            f"private[{seat}]: {e.message}" for e in _validator(event, "private").iter_errors(part)
        ]
    if problems:
        raise InvalidEvent(f"{event.name}: " + "; ".join(problems))


# --- reading -----------------------------------------------------------------------------------


class EventRecord(Protocol):
    """What a reader needs of a stored event (a ``MatchEvent`` row)."""

    seq: int
    type: str
    step: int | None
    at: datetime
    show_at: bool
    data: Any
    private: dict[str, Any]
    table_only: bool


@dataclass(frozen=True)
class Reader:
    """Who reads a match's events, and so what they may see.

    ``seat``: the seat whose private parts are merged in (None: a spectator or an operator).
    ``table_only_from``: the oldest step whose table-only events are still readable (None:
    all of them). ``auditor``: the match is over and its whole record is published, every
    seat's private part beside the public data.
    """

    seat: int | None = None
    table_only_from: int | None = None
    auditor: bool = False


AUDITOR = Reader(auditor=True)


def timestamp(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def event_for(row: EventRecord, reader: Reader) -> dict[str, Any]:
    """The event as ``reader`` may read it: the one redaction of the project."""
    data = row.data
    if reader.auditor:
        return {
            "seq": row.seq,
            "type": row.type,
            "step": row.step,
            "at": timestamp(row.at) if row.show_at else None,
            "data": data,
            "private": row.private or {},
        }
    if (
        row.table_only
        and reader.table_only_from is not None
        and (row.step or 0) < reader.table_only_from
    ):
        data = None
    elif reader.seat is not None and str(reader.seat) in row.private:
        data = {**(data or {}), **row.private[str(reader.seat)]}
    return {
        "seq": row.seq,
        "type": row.type,
        "step": row.step,
        "at": timestamp(row.at) if row.show_at else None,
        "data": data,
    }


def catalogue_schemas() -> dict[str, dict[str, Any]]:
    """Each event type's documentation and the JSON Schemas of its parts (for OpenAPI)."""
    return {
        name: {
            "description": event.doc,
            "data": json_schema(event.data),
            "private": json_schema(event.private) if event.private is not None else None,
            "show_at": event.show_at,
            "may_be_table_only": event.may_be_table_only,
        }
        for name, event in CATALOGUE.items()
    }
