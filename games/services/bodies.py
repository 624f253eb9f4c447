"""The bodies of the match routes (a match, a page of matches, a move's answer, a page of
events), each declared once, here.

``presenters.py`` and the move service return these types, and the OpenAPI schema's components are
generated from the same declarations (games/api/body_schemas.py), so a body and its schema cannot
drift apart: tests/api/test_shapes.py checks that each body carries exactly the declared keys,
and the schema guard checks every response the tests receive against the schema. A
``TypedDict`` costs nothing at run time: the hot routes render plain dictionaries, never a
serializer.

No ``from __future__ import annotations`` here: a ``TypedDict`` learns which keys are
``NotRequired`` only from annotations evaluated when the class is made.
"""

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from msgspec import Meta

#: A time as the API writes it (``games.events.timestamp``): ISO 8601 with its offset.
Timestamp = Annotated[str, Meta(extra_json_schema={"format": "date-time"})]
Uuid = Annotated[str, Meta(extra_json_schema={"format": "uuid"})]


Status = Literal["open", "active", "finished", "aborted"]
PhaseKind = Literal["none", "simultaneous", "reveal", "turn"]
ControlledBy = Literal["player", "bot"]


class Seat(TypedDict):
    index: int
    player: str | None
    bot: str | None
    accepted: bool
    score: int
    forfeited: bool
    controlled_by: ControlledBy


class Phase(TypedDict):
    kind: PhaseKind
    to_act: list[int]
    deadline: Timestamp | None
    submitted: Annotated[
        list[int],
        Meta(
            description=(
                "Seats whose move is recorded; only your own when disclose_submitted is false."
            )
        ),
    ]
    your_move: Any


class Result(TypedDict):
    scores: list[int]
    winners: list[int]
    ranking: list[list[int]]
    reason: Literal["completed", "forfeit", "aborted"]


class Fairness(TypedDict):
    seed_sha256: str
    seed: Annotated[str | None, Meta(description="Published when the match is over.")]


class SeriesRef(TypedDict):
    id: Uuid
    index: Annotated[int, Meta(description="0-based place of the match in its series.")]


class MatchHead(TypedDict):
    """The first keys of a match, the same in the list and the detail (a part, not a body)."""

    id: Uuid
    game: str
    options: dict[str, Any]
    protocol: str
    disclose_submitted: bool
    chat: Annotated[bool, Meta(description="Whether the match has a chat room.")]
    status: Status
    version: int
    step: int


class MatchOutcome(TypedDict):
    """How a match ended and what followed it (a part, not a body)."""

    result: Result | None
    rated: bool
    rematch: Annotated[
        Uuid | None, Meta(description="The rematch's id, once a seated player asked for one.")
    ]
    series: SeriesRef | None


class SeatClock(TypedDict):
    """A seat's clock (docs/api.md, "Clocks"): count down from ``running_since`` yourself."""

    seat: int
    remaining_at_step_start: Annotated[
        float, Meta(description="Seconds in the bank when the clock (re)started.")
    ]
    remaining: Annotated[
        float | None,
        Meta(
            description="Seconds left: when running, as of running_since; else what is left "
            "(null for another seat that has moved: told when the step resolves)."
        ),
    ]
    periods_left: Annotated[int | None, Meta(description="Byo-yomi periods left.")]
    running_since: Annotated[
        Timestamp | None,
        Meta(description="When the clock started counting (later than now: held until then)."),
    ]
    expires_at: Annotated[
        Timestamp | None, Meta(description="When the running clock runs out if its seat waits.")
    ]
    time_zone: Annotated[
        str | None, Meta(description="Whose weekends pause this clock (weekend_pause).")
    ]
    vacation_until: Annotated[
        Timestamp | None, Meta(description="The seat's player is on vacation until then.")
    ]


class OpenProposal(TypedDict):
    """The open pause or abort proposal, as the match shows it (``Proposal`` in full)."""

    id: int
    kind: Literal["pause", "abort"]
    proposer: int
    until: Timestamp | None
    expires_at: Annotated[
        Timestamp, Meta(description="Unanswered by then, it is expired (compare it yourself).")
    ]
    accepted: list[int]


class MatchClocks(TypedDict):
    """The time control and the clocks (a part, not a body)."""

    time_control: dict[str, Any] | None
    clocks: list[SeatClock] | None
    paused_until: Annotated[
        Timestamp | None, Meta(description="The end of the pause the players agreed to.")
    ]
    proposal: Annotated[
        OpenProposal | None,
        Meta(description="The open pause or abort proposal (GET /matches/{id}/proposals)."),
    ]


class MatchSummary(MatchHead, MatchClocks, MatchOutcome):
    """A match as the list shows it."""

    seats: list[Seat]
    you: int | None
    created_by: str
    created_at: Timestamp
    started_at: Timestamp | None
    finished_at: Timestamp | None
    phase: Phase
    fairness: Fairness


class Match(MatchSummary):
    """A match as its reader may see it, with the moves they may make now."""

    legal_moves: list[dict[str, Any]]
    view: Annotated[Any, Meta(description="Game-specific, redacted for the requester.")]
    conditional_moves: Annotated[
        bool,
        Meta(
            description="Whether seats may set conditional moves (GET "
            "/matches/{id}/conditional-moves): correspondence matches of GOPS and Hols der "
            "Geier under the sealed protocol only."
        ),
    ]


class MatchPage(TypedDict):
    results: list[MatchSummary]
    next: str | None


class Receipt(TypedDict):
    match: Uuid
    step: int
    seat: int
    digest: str
    version: int
    at: Timestamp
    key_id: Annotated[str, Meta(description="Names the signing key: GET /fairness/key.")]
    sig: Annotated[
        str,
        Meta(
            description=(
                "Ed25519 signature, 128 hex characters (docs/fairness.md gives the message)."
            )
        ),
    ]
    kind: NotRequired[
        Annotated[
            Literal["move", "commitment", "reveal"],
            Meta(description="What was signed; absent means a move (docs/fairness.md)."),
        ]
    ]


class MoveAnswer(TypedDict):
    """A recorded move (or commitment, or reveal): its step, its seat and its signed receipt."""

    step: int
    seat: int
    receipt: Receipt


class Event(TypedDict):
    """A match event, redacted for the reader (the schema has one component per type)."""

    seq: int
    type: str
    step: int | None
    at: Timestamp | None
    data: Any


class EventPage(TypedDict):
    results: list[Event]
    next: str | None
    last_seq: int


class Proposal(TypedDict):
    """A pause or an abort a seated player proposed (docs/api.md, "Pause and abort by
    agreement"); ``accepted``: the seats that agreed, its proposer's first."""

    id: int
    kind: Literal["pause", "abort"]
    proposer: int
    until: Timestamp | None
    created_at: Timestamp
    expires_at: Timestamp
    accepted: list[int]
    status: Literal["open", "accepted", "declined", "withdrawn", "expired"]
    answered_at: Timestamp | None
    answered_by: int | None


class ProposalPage(TypedDict):
    results: list[Proposal]


class SeatOffer(TypedDict):
    """A seat offered to a substitute (games/services/substitutes.py): public."""

    id: int
    match: Uuid
    game: str
    seat: int
    offered_by: str
    invitee: Annotated[str | None, Meta(description="Null: an open seat anyone may take.")]
    status: Literal["open", "taken", "declined", "withdrawn", "closed"]
    created_at: Timestamp
    answered_at: Timestamp | None
    taken_by: str | None


class Tenure(TypedDict):
    """Who held a seat that changed hands, from which step to which (null: still theirs)."""

    seat: int
    player: str
    from_step: int
    to_step: int | None


class SubstitutePage(TypedDict):
    offers: list[SeatOffer]
    tenures: Annotated[
        list[Tenure],
        Meta(description="Only seats that changed hands; any other seat's player played it all."),
    ]


class SeatOfferPage(TypedDict):
    results: list[SeatOffer]


#: Every shape above, the OpenAPI components generated from them (games/api/body_schemas.py).
class ConditionalRule(TypedDict):
    pot: Annotated[
        list[int] | None,
        Meta(description="The pot values (the sum of the pot's cards) it applies to; null: any."),
    ]
    card: int


class ConditionalPlayed(TypedDict):
    """A move one of your rules played, with its signed receipt."""

    step: int
    card: int
    receipt: Receipt


class ConditionalMoves(TypedDict):
    """Your seat's conditional moves, in the order they are tried, and the moves your rules
    played in this match (never anyone else's)."""

    seat: int
    rules: list[ConditionalRule]
    played: list[ConditionalPlayed]


SHAPES: tuple[type, ...] = (
    Seat,
    Phase,
    Result,
    Fairness,
    SeriesRef,
    MatchSummary,
    Match,
    MatchPage,
    Receipt,
    MoveAnswer,
    Event,
    EventPage,
    Proposal,
    ProposalPage,
    ConditionalRule,
    ConditionalPlayed,
    ConditionalMoves,
    SeatOffer,
    Tenure,
    SubstitutePage,
    SeatOfferPage,
)
