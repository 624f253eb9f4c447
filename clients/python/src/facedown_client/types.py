"""The shapes of the API's answers (docs/api.md), as TypedDicts.

``total=False`` where the server adds fields over time or leaves some out (a spectator's view,
a receipt's ``kind``): a client reads what it needs and never fails on an addition.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

#: A move is game-specific JSON: ``{"card": 7}``, ``{"take": "QS"}``, ``{"life": [...]}``.
Move = dict[str, Any]

DeclineReason = Literal[
    "generic",
    "later",
    "too_fast",
    "too_slow",
    "time_control",
    "rated",
    "casual",
    "variant",
    "no_bot",
    "only_bot",
]
DECLINE_REASONS: tuple[DeclineReason, ...] = (
    "generic",
    "later",
    "too_fast",
    "too_slow",
    "time_control",
    "rated",
    "casual",
    "variant",
    "no_bot",
    "only_bot",
)

Scope = Literal["read", "play", "bot:play", "challenge", "account", "tournament"]


class AccessToken(TypedDict, total=False):
    """``POST /accounts/token`` and ``/accounts/me/tokens``; ``token``: the secret, shown once."""

    token: str
    id: int
    name: str
    scopes: list[str]
    created_at: str
    expires_at: str | None
    last_used_at: str | None


class Account(TypedDict, total=False):
    username: str
    email: str
    date_joined: str
    bot: bool
    language: str
    #: Who may invite you: ``anyone``, ``known`` or ``nobody`` (docs/api.md).
    invitations_from: str
    invitations_from_bots: bool
    #: The web client's screen-reader mode on match pages.
    screen_reader: bool


class BotInfo(TypedDict, total=False):
    name: str
    options: dict[str, Any]
    description: str
    strength: dict[str, Any] | None


class Game(TypedDict, total=False):
    slug: str
    name: str
    players: dict[str, int]
    options: dict[str, Any]
    bots: list[BotInfo]


class Seat(TypedDict, total=False):
    index: int
    player: str | None
    bot: str | None
    accepted: bool
    score: int
    forfeited: bool
    controlled_by: str


class Phase(TypedDict, total=False):
    kind: Literal["simultaneous", "reveal", "turn", "none"]
    to_act: list[int]
    submitted: list[int]
    deadline: str | None
    your_move: Move | None


class Result(TypedDict, total=False):
    scores: list[int]
    winners: list[int]
    ranking: list[list[int]]
    reason: Literal["completed", "forfeit", "aborted"]


class Fairness(TypedDict, total=False):
    seed_sha256: str
    seed: str | None


class SeatClock(TypedDict, total=False):
    """One seat's clock: count down from ``running_since`` yourself."""

    seat: int
    remaining_at_step_start: float
    remaining: float | None
    periods_left: int | None
    running_since: str | None
    expires_at: str | None
    time_zone: str | None
    vacation_until: str | None


class Match(TypedDict, total=False):
    """``GET /matches/{id}`` (the list's items lack ``view`` and ``legal_moves``)."""

    id: str
    game: str
    options: dict[str, Any]
    protocol: Literal["sealed", "commit-reveal"]
    disclose_submitted: bool
    status: Literal["open", "active", "finished", "aborted"]
    version: int
    step: int
    seats: list[Seat]
    you: int | None
    phase: Phase
    time_control: dict[str, Any] | None
    clocks: list[SeatClock] | None
    paused_until: str | None
    legal_moves: list[Move]
    view: dict[str, Any]
    result: Result | None
    fairness: Fairness
    rated: bool
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    chat: bool
    conditional_moves: bool
    #: The open proposal (a draw, an abort, …) or None.
    proposal: dict[str, Any] | None
    #: The rematch's match id, once there is one.
    rematch: str | None
    #: The series this match belongs to, or None.
    series: dict[str, Any] | None


class Page(TypedDict, total=False):
    results: list[Any]
    next: str | None


class Receipt(TypedDict, total=False):
    """A signed receipt (docs/fairness.md, "Receipts"); ``kind`` only under commit-reveal."""

    match: str
    step: int
    seat: int
    digest: str
    version: int
    at: str
    key_id: str
    sig: str
    kind: Literal["move", "commitment", "reveal"]


class MoveAnswer(TypedDict):
    step: int
    seat: int
    receipt: Receipt


class Event(TypedDict, total=False):
    seq: int
    type: str
    step: int | None
    at: str | None
    data: Any


class EventPage(TypedDict, total=False):
    results: list[Event]
    next: str | None
    last_seq: int


class OldKey(TypedDict):
    key_id: str
    public_key: str


class FairnessKey(TypedDict, total=False):
    """``GET /fairness/key``: the current key and the retired ones still trusted."""

    key_id: str
    algorithm: str
    public_key: str
    old_keys: list[OldKey]


class Challenge(TypedDict, total=False):
    id: str
    status: Literal["pending", "accepted", "declined", "canceled", "expired"]
    challenger: str
    challenger_bot: bool
    to: str | None
    house_bot: str | None
    game: str
    options: dict[str, Any]
    seats: int
    time_control: dict[str, Any] | None
    rated: bool
    protocol: str
    allow_bots: bool
    created_at: str
    expires_at: str | None
    decline_reason: str | None
    match_id: str | None


class Challenges(TypedDict):
    incoming: list[Challenge]
    outgoing: list[Challenge]
    #: Open challenges you may accept.
    open: list[Challenge]


class LadderEntry(TypedDict, total=False):
    """An entry on a game's ladder (``GET /ladders/{game}/entry``, and each of the page's)."""

    game: str
    player: str
    is_bot: bool
    status: Literal["active", "paused", "left"]
    #: Why the server paused the entry (``timeouts``), or None.
    paused_reason: str | None
    seats: list[int]
    options: list[dict[str, Any]]
    time_controls: list[dict[str, Any]]
    max_concurrent: int
    rating: int
    provisional: bool
    mu: float
    sigma: float
    #: openskill's mu - 2 sigma and mu + 2 sigma.
    interval: list[float]
    played: int
    won: int


class LadderPair(TypedDict):
    player: str
    opponent: str
    matches: int
    score: float
    #: The 95% Wilson interval of the player's score share.
    interval: list[float]


class LadderMatch(TypedDict, total=False):
    match_id: str
    players: list[str]
    started_at: str
    finished_at: str | None
    ranking: list[list[int]] | None
    verified: bool | None
    #: The transcript's path (``facedown-transcript-v1``), for ``python -m games.verify``.
    transcript: str


class LadderFailure(TypedDict):
    match_id: str
    problems: str


class LadderVerification(TypedDict):
    verified: int
    failed: int
    pending: int
    failures: list[LadderFailure]


class Ladder(TypedDict):
    """``GET /ladders/{game}``: the public page's data."""

    game: str
    entrants: list[LadderEntry]
    crosstable: list[LadderPair]
    matches: list[LadderMatch]
    verification: LadderVerification
