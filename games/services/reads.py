"""What a viewer may read of a match: the match resource, its ETag, the event feed.

Everything a client sees of a match is built here from the engine's ``view`` and from event
data redacted for that viewer; raw engine state never leaves this module.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple, cast

from django.db import connection, connections, router, transaction
from django.db.models import Case, Exists, F, Max, OuterRef, Prefetch, Q, QuerySet, When
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import NotFound
from games import match_store
from games.catalog import get_engine
from games.engine.protocol import Engine
from games.events import Reader, event_for, timestamp
from games.models import Match, MatchEvent, Move, Seat
from games.services import shapes
from games.services.archive import archived_events, archived_moves
from games.services.clock_views import clocks_shown, deadline_shown, paused_until_shown
from games.services.conditional_rules import conditional_offered
from games.services.steps import phase_public

EVENTS_PAGE = 200


@dataclass
class MatchSnapshot:
    """A match and its seats as read for one viewer, before the engine state is loaded."""

    match: Match
    seats: list[Seat]
    you: int | None
    #: The requester's user id (their seat may be taken between two reads).
    viewer: int | None = None

    @property
    def engine(self) -> Engine:
        engine = get_engine(self.match.game)
        assert engine is not None
        return engine

    @property
    def own_submitted(self) -> bool:
        return self.you is not None and bool(self.match.submitted_mask >> self.you & 1)

    @property
    def etag(self) -> str:
        return _etag(self.match.id, self.match.version, self.you, self.match.submitted_mask)


def _etag(match_id: uuid.UUID, version: int, you: int | None, submitted_mask: int) -> str:
    """Strong and per viewer; it changes with the public version and the viewer's own
    submission, never with another seat's (hidden) action."""
    own = you is not None and bool(submitted_mask >> you & 1)
    basis = f"{match_id}|{version}|{you}|{int(own)}"
    return '"' + hashlib.sha256(basis.encode()).hexdigest()[:32] + '"'


@dataclass
class SnapshotRead:
    """The snapshot's rows as read, before they become model instances: enough for the ETag,
    so a conditional read that is answered 304 never builds them."""

    rows: match_store.SnapshotRows
    viewer: int | None

    def etag(self) -> str:
        match_id, version, submitted, seats = self.rows.etag_columns()
        you = next((index for index, user in seats if user == self.viewer), None)
        return _etag(match_id, version, you, submitted)

    def snapshot(self) -> MatchSnapshot:
        seats = self.rows.seats()
        you = next((seat.index for seat in seats if seat.user_id == self.viewer), None)
        return MatchSnapshot(match=seats[0].match, seats=seats, you=you, viewer=self.viewer)


def match_snapshot_read(
    *, match_id: uuid.UUID | str, user: User, with_state: bool = False
) -> SnapshotRead:
    """The match row and its seats, in one query; ``with_state``: the engine state too (the
    match detail's: it comes in the same row as the version and submissions the ETag is made
    of, so body and ETag agree without a second query)."""
    try:
        key = match_id if isinstance(match_id, uuid.UUID) else uuid.UUID(str(match_id))
    except ValueError:
        raise NotFound(gettext_noop("No match with this id.")) from None
    rows = match_store.snapshot_rows(key, with_state=with_state)
    if not rows:
        raise NotFound(gettext_noop("No match with this id."))
    return SnapshotRead(rows, user.pk)


def spectator_snapshot(*, match_id: uuid.UUID | str) -> MatchSnapshot:
    """The match as a spectator reads it (no seat's hidden information): what a report keeps
    as its evidence (moderation/reports.py)."""
    rows = match_store.snapshot_rows(uuid.UUID(str(match_id)), with_state=False)
    if not rows:
        raise NotFound(gettext_noop("No match with this id."))
    return SnapshotRead(rows, None).snapshot()


def match_snapshot(*, match_id: uuid.UUID | str, user: User) -> MatchSnapshot:
    """The match row (without its engine state) and its seats, in one query."""
    return match_snapshot_read(match_id=match_id, user=user).snapshot()


def _state_read(match_id: uuid.UUID) -> tuple[Any, int, int]:
    found = match_store.state_read(match_id)
    if found is None:
        raise Match.DoesNotExist("No match with this id.")
    return found


def match_state(snapshot: MatchSnapshot) -> Any:
    """The engine state that belongs to ``snapshot``, so a body and its ETag agree.

    The snapshot (match row and seats, from which the ETag is made) and the engine state are
    two queries, and a change may commit between them. The state's query also returns
    ``version`` and ``submitted_mask``, the ETag's inputs; every change a viewer can see moves
    one of them (``version`` only rises). When they still equal the snapshot's, the state is the
    snapshot's. Otherwise both are read again in one REPEATABLE READ transaction (on SQLite a
    transaction is a snapshot already), and ``snapshot`` is updated in place to that read: the
    caller takes the ETag from it after building the body. This costs nothing unless a change
    raced the read.

    A snapshot read ``with_state`` has its state from the same row already: no query.
    """
    if "state" in snapshot.match.__dict__:  # not deferred: read with the snapshot
        return snapshot.match.state
    state, version, submitted = _state_read(snapshot.match.pk)
    if (version, submitted) == (snapshot.match.version, snapshot.match.submitted_mask):
        return state
    # Inside a caller's transaction the isolation level is the caller's: the loop then reads
    # again until the two queries agree. On its own, one REPEATABLE READ pass always agrees.
    isolate = connection.vendor == "postgresql" and not connection.in_atomic_block
    while True:
        with transaction.atomic():
            if isolate:
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            seats = match_store.snapshot_rows(snapshot.match.pk, with_state=False).seats()
            state, version, submitted = _state_read(snapshot.match.pk)
        match = seats[0].match
        if (version, submitted) == (match.version, match.submitted_mask):
            break
    snapshot.match, snapshot.seats = match, seats
    viewer = snapshot.viewer
    snapshot.you = next((s.index for s in seats if viewer and s.user_id == viewer), None)
    return state


def _listed(
    *,
    user_id: int,
    status: str | None,
    mine: bool,
    awaiting_me: bool,
    invited: bool,
    game: str | None,
) -> QuerySet[Match]:
    """The matches of ``match_list``, filtered: the one definition of what the list holds,
    for the queryset (``match_list``) and for the API's pages (``match_page``)."""
    # Each filter is a set of match ids from an indexed seat query, never a per-row EXISTS:
    # an OR of two EXISTS made PostgreSQL scan every match (docs/data.md, "Indexes").
    seats = Seat.objects.order_by()
    matches = Match.objects.all()
    if invited:
        unanswered = seats.filter(user_id=user_id, invited=True, accepted=False)
        matches = matches.filter(pk__in=unanswered.values("match_id"), status=Match.Status.OPEN)
    if awaiting_me:
        # ``awaiting_move`` is kept by the unit of work; its partial index holds only the
        # seats a match waits for.
        awaited = seats.filter(user_id=user_id, awaiting_move=True)
        matches = matches.filter(pk__in=awaited.values("match_id"), status=Match.Status.ACTIVE)
    if mine and not (invited or awaiting_me):
        matches = matches.filter(pk__in=seats.filter(user_id=user_id).values("match_id"))
    if not (mine or invited or awaiting_me):
        # Walked newest first (index ``match_created``) against the requester's match ids,
        # hashed once from an index-only scan (``seat_user_match``): a page costs the rows
        # walked to fill it, not the user's whole history.
        theirs = seats.filter(user_id=user_id).values("match_id")
        joinable = seats.filter(match=OuterRef("pk"), user__isnull=True, bot="")
        matches = matches.filter(Q(pk__in=theirs) | Q(Exists(joinable), status=Match.Status.OPEN))
    if status:
        matches = matches.filter(status=status)
    if game:
        matches = matches.filter(game=game)
    return matches


def match_list(
    *,
    user: User,
    status: str | None = None,
    mine: bool = False,
    awaiting_me: bool = False,
    invited: bool = False,
    game: str | None = None,
) -> QuerySet[Match]:
    """The requester's matches, plus (without ``mine``) open matches they could join.

    ``awaiting_me``: active matches waiting for the requester's move. ``invited``: open matches
    with an invitation to the requester not yet answered (join accepts it, decline refuses).
    Filters combine: each one given narrows the list.

    As a queryset (model instances, seats prefetched): the API's list reads the same matches
    with ``match_page`` and ``listed_resources`` instead, which compile nothing per request.
    """
    matches = _listed(
        user_id=user.pk,
        status=status,
        mine=mine,
        awaiting_me=awaiting_me,
        invited=invited,
        game=game,
    )
    return (
        matches.defer("state")
        .select_related("created_by")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
        )
    )


class ListedMatch(NamedTuple):
    """A match as the list reads it: its public columns only (no engine state, and the seed
    only once the match is over), converted as Django converts them."""

    id: uuid.UUID
    game: str
    options: Any
    protocol: str
    disclose_submitted: bool
    chat: bool
    status: str
    version: int
    step: int
    #: The creator's name.
    created_by: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    phase_kind: str
    acting_mask: int
    submitted_mask: int
    deadline: datetime | None
    time_control: Any
    clocks: Any
    paused_until: datetime | None
    proposal: Any
    scores: list[int]
    result: Any
    rated: bool
    rematch_id: uuid.UUID | None
    series_id: uuid.UUID | None
    series_index: int | None
    seed_sha256: str
    #: None while the match runs: the seed is not even read then.
    seed: str | None


@dataclass(frozen=True)
class ListFilters:
    """The list's query parameters (``match_list``'s arguments), for ``match_page``."""

    user_id: int
    status: str | None = None
    mine: bool = False
    awaiting_me: bool = False
    invited: bool = False
    game: str | None = None


_OVER = [Match.Status.FINISHED, Match.Status.ABORTED]
_LISTED_COLUMNS = [
    "created_by__username" if name == "created_by" else name
    for name in ListedMatch._fields
    if name != "seed"
]


def match_page(
    filters: ListFilters,
    *,
    ordering: str = "-created_at",
    bound: tuple[str, Any] | None = None,
    low: int = 0,
    high: int | None = None,
) -> list[ListedMatch]:
    """``match_list(...).order_by(ordering).filter(created_at__<lookup>=position)[low:high]``
    as ``ListedMatch`` rows: only the columns the list shows, no model instances.
    ``bound``: ("lt" or "gt", position)."""
    if ordering not in ("-created_at", "created_at"):
        raise ValueError(f"the match list is not ordered by {ordering!r}")
    if bound is not None and bound[0] not in ("lt", "gt"):
        raise ValueError(f"the match list is not bounded by created_at__{bound[0]}")
    matches = _listed(
        user_id=filters.user_id,
        status=filters.status,
        mine=filters.mine,
        awaiting_me=filters.awaiting_me,
        invited=filters.invited,
        game=filters.game,
    ).order_by(ordering)
    if bound is not None:
        matches = matches.filter(**{f"created_at__{bound[0]}": bound[1]})
    seed = Case(When(status__in=_OVER, then=F("seed")), default=None)
    rows = matches.values_list(*_LISTED_COLUMNS, seed)[low:high]
    return [ListedMatch._make(row) for row in rows]


_SEAT_TABLE, _USER_TABLE = Seat._meta.db_table, User._meta.db_table
# The seats of a page, with their players' names, as the queryset's prefetch finds them
# (ordered by index within each match), but only the columns the list shows.
_LISTED_SEATS_SQL = (
    'SELECT s."match_id", s."index", s."user_id", u."username", s."bot", s."accepted",'
    ' s."forfeited", s."controlled_by", s."held_until"'
    f' FROM "{_SEAT_TABLE}" s LEFT OUTER JOIN "{_USER_TABLE}" u ON u."id" = s."user_id"'
    ' WHERE s."match_id" IN ({}) ORDER BY s."index" ASC'
)


def listed_resources(page: list[ListedMatch], viewer: int | None) -> list[shapes.MatchSummary]:
    """The page's matches as ``match_resource(snapshot_of(match, viewer), detail=False)``
    shows them, built from rows: one query for every seat of the page, no model instances."""
    if not page:
        return []
    using = router.db_for_read(Seat)
    db = connections[using]
    match_field = Seat._meta.get_field("match")
    keys = [match_field.get_db_prep_value(listed.id, db) for listed in page]
    seats: dict[Any, list[tuple[Any, ...]]] = {key: [] for key in keys}
    with db.cursor() as cursor:
        cursor.execute(_LISTED_SEATS_SQL.format(", ".join(["%s"] * len(keys))), keys)
        for row in cursor.fetchall():
            seats[row[0]].append(row)
    return [
        _listed_resource(listed, seats[key], viewer) for listed, key in zip(page, keys, strict=True)
    ]


def _listed_resource(
    match: ListedMatch, seats: list[tuple[Any, ...]], viewer: int | None
) -> shapes.MatchSummary:
    """``match_resource(..., detail=False)`` for a listed match: the same keys in the same
    order (tests/api/test_match_list.py compares the two)."""
    scores = match.scores
    you = next((seat[1] for seat in seats if seat[2] == viewer), None)
    return {
        **_match_head(match),
        "seats": [
            {
                "index": index,
                "player": username,
                "bot": bot or None,
                "accepted": bool(accepted),
                "score": scores[index] if index < len(scores) else 0,
                "forfeited": bool(forfeited),
                "controlled_by": cast(shapes.ControlledBy, controlled_by),
            }
            for _, index, _, username, bot, accepted, forfeited, controlled_by, _ in seats
        ],
        "you": you,
        "created_by": match.created_by,
        "created_at": cast(str, timestamp(match.created_at)),
        "started_at": timestamp(match.started_at),
        "finished_at": timestamp(match.finished_at),
        "phase": {
            "kind": cast(shapes.PhaseKind, match.phase_kind),
            "to_act": Match.seats_of(match.acting_mask),
            "deadline": timestamp(deadline_shown(match, [bool(seat[6]) for seat in seats])),
            "submitted": _submitted_shown(match, you),
            "your_move": None,
        },
        **_match_clocks(match, you, [_aware(seat[8]) for seat in seats]),
        **_match_outcome(match),
        "fairness": {"seed_sha256": match.seed_sha256, "seed": match.seed},
    }


def _match_head(match: Match | ListedMatch) -> shapes.MatchHead:
    """The first keys of a match resource, the same for the detail and the list."""
    return {
        "id": str(match.id),
        "game": match.game,
        "options": match.options,
        "protocol": match.protocol,
        "disclose_submitted": match.disclose_submitted,
        "chat": match.chat,
        "status": cast(shapes.Status, match.status),
        "version": match.version,
        "step": match.step,
    }


def _aware(value: datetime | str | None) -> datetime | None:
    """A timestamp from the list's plain SQL: SQLite returns the text Django stored (UTC)."""
    if isinstance(value, str):
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    return value


def _match_clocks(
    match: Match | ListedMatch, you: int | None, held_until: list[datetime | None]
) -> shapes.MatchClocks:
    return {
        "time_control": match.time_control,
        "clocks": clocks_shown(match, you, held_until),
        "paused_until": paused_until_shown(match),
        "proposal": match.proposal if match.status == Match.Status.ACTIVE else None,
    }


def _match_outcome(match: Match | ListedMatch) -> shapes.MatchOutcome:
    series: shapes.SeriesRef | None = None
    if match.series_id:
        series = {"id": str(match.series_id), "index": cast(int, match.series_index)}
    return {
        "result": match.result,
        "rated": match.rated,
        "rematch": str(match.rematch_id) if match.rematch_id else None,
        "series": series,
    }


def _submitted_shown(match: Match | ListedMatch, you: int | None) -> list[int]:
    """The seats a viewer sees as having submitted in the open step: every one when the
    match discloses submissions, else only the viewer's own (hidden information)."""
    if match.phase_kind == Match.PhaseKind.TURN:
        return []
    if match.disclose_submitted:
        return Match.seats_of(match.submitted_mask)
    if you is not None and match.submitted_mask >> you & 1:
        return [you]
    return []


def snapshot_of(match: Match, user: User) -> MatchSnapshot:
    """A snapshot from a match whose seats were prefetched (lists)."""
    seats = list(match.seats.all())
    you = next((seat.index for seat in seats if seat.user_id == user.pk), None)
    return MatchSnapshot(match=match, seats=seats, you=you, viewer=user.pk)


def _seat_resource(seat: Seat, scores: list[int]) -> shapes.Seat:
    return {
        "index": seat.index,
        "player": seat.user.username if seat.user is not None else None,
        "bot": seat.bot or None,
        "accepted": seat.accepted,
        "score": scores[seat.index] if seat.index < len(scores) else 0,
        "forfeited": seat.forfeited,
        "controlled_by": cast(shapes.ControlledBy, seat.controlled_by),
    }


def _phase(snapshot: MatchSnapshot, your_move: Any) -> shapes.Phase:
    match = snapshot.match
    public = phase_public(match, snapshot.seats)
    return {
        "kind": cast(shapes.PhaseKind, public["kind"]),
        "to_act": public["to_act"],
        "deadline": public["deadline"],
        "submitted": _submitted_shown(match, snapshot.you),
        "your_move": your_move,
    }


def _your_move(snapshot: MatchSnapshot, state: Any) -> Any:
    """The viewer's own recorded move in the open step, if the game shows it back to them."""
    match = snapshot.match
    if not snapshot.own_submitted or snapshot.you is None or state is None:
        return None
    recorded = (
        Move.objects.filter(match=match, step=match.step, seat=snapshot.you)
        .values_list("payload", flat=True)
        .first()
    )
    if recorded is None and match.is_over:
        recorded = next(
            (
                move.payload
                for move in archived_moves(match) or []
                if (move.step, move.seat) == (match.step, snapshot.you)
            ),
            None,
        )
    if recorded is not None and snapshot.engine.echoes(state, recorded):
        return recorded
    return None


def match_resource(snapshot: MatchSnapshot, *, detail: bool = True) -> shapes.MatchSummary:
    """The match as docs/api.md ("Read") describes it, for the snapshot's viewer: a
    ``shapes.Match`` with ``detail``, else a ``shapes.MatchSummary``.

    With ``detail`` the engine state is read too (``match_state``), which may renew
    ``snapshot`` when a change raced the read: take the ETag from the snapshot afterwards.
    """
    state = match_state(snapshot) if detail else None
    match = snapshot.match
    summary: shapes.MatchSummary = {
        **_match_head(match),
        "seats": [_seat_resource(seat, match.scores) for seat in snapshot.seats],
        "you": snapshot.you,
        "created_by": match.created_by.username if match.created_by is not None else "",
        "created_at": cast(str, timestamp(match.created_at)),
        "started_at": timestamp(match.started_at),
        "finished_at": timestamp(match.finished_at),
        "phase": _phase(snapshot, _your_move(snapshot, state) if detail else None),
        **_match_clocks(match, snapshot.you, [seat.held_until for seat in snapshot.seats]),
        **_match_outcome(match),
        "fairness": {
            "seed_sha256": match.seed_sha256,
            "seed": match.seed if match.is_over else None,
        },
    }
    if not detail:
        return summary
    body: shapes.Match = {
        **summary,
        "legal_moves": _legal_moves(snapshot, state),
        "view": _view(snapshot, state),
        "conditional_moves": conditional_offered(match.game, match.protocol, match.time_control),
    }
    return body


def _view(snapshot: MatchSnapshot, state: Any) -> Any:
    """The engine's view for the viewer. A match ended by forfeit (or aborted) stops before
    the rules end it, so its state still says it is running: its view says ``over`` like the
    match's ``status``."""
    if state is None:
        return None
    view = snapshot.engine.view(state, snapshot.you)
    if snapshot.match.is_over and isinstance(view, dict) and "over" in view:
        view["over"] = True
    return view


def _legal_moves(snapshot: MatchSnapshot, state: Any) -> list[dict[str, Any]]:
    match, you = snapshot.match, snapshot.you
    if (
        you is None
        or state is None
        or match.status != Match.Status.ACTIVE
        or match.phase_kind == Match.PhaseKind.REVEAL
        or not match.acting_mask >> you & 1
        or snapshot.own_submitted
        or snapshot.seats[you].forfeited
    ):
        return []
    return snapshot.engine.legal_moves(state, you)


def events_for_viewer(
    *, snapshot: MatchSnapshot, after: int, limit: int = EVENTS_PAGE
) -> tuple[list[shapes.Event], bool]:
    """Events after ``after`` (exclusive), redacted for the viewer, and whether more follow."""
    match = snapshot.match
    rows: list[Any] = match_store.event_rows(match, after, limit + 1, seat=snapshot.you)
    if not rows and match.is_over and after < match.last_seq:
        # Archived (games/services/archive.py): the same rows, rebuilt from its archive.
        rows = [row for row in archived_events(match) or [] if row.seq > after][: limit + 1]
    more = len(rows) > limit
    rows = rows[:limit]
    reader = Reader(seat=snapshot.you, table_only_from=_table_only_horizon(snapshot, rows))
    return events_shown(rows, reader, over=match.is_over), more


def events_shown(rows: list[MatchEvent], reader: Reader, *, over: bool) -> list[shapes.Event]:
    """The rows as ``reader`` reads them in the event feed (and in the streams)."""
    shown = [event_for(row, reader) for row in rows]
    if over:
        # A submission's time is hidden while the match runs (it tells when a seat moved);
        # once the match is over every move is public, so its time is too.
        for row, event in zip(rows, shown, strict=True):
            if event["at"] is None:
                event["at"] = timestamp(row.at)
    return cast(list[shapes.Event], shown)


def seat_reader_at_commit(match: Match, seat: int, moved_steps: list[int]) -> Reader:
    """What seat ``seat`` may read of the events a change just wrote, as ``events_for_viewer``
    would answer right after the commit. ``moved_steps``: the steps of the seat's moves in
    that change. The horizon is the seat's last move; its earlier moves are in steps no later
    than the change's events, so only this change's moves can hide any of them."""
    if match.is_over:
        return Reader(seat=seat)
    return Reader(seat=seat, table_only_from=max(moved_steps, default=0))


def spectator_reader(match: Match) -> Reader:
    """What a spectator (and an operator) may read of the match's events now."""
    return Reader(table_only_from=None if match.is_over else match.step - 1)


def _table_only_horizon(snapshot: MatchSnapshot, rows: list[MatchEvent]) -> int | None:
    """The oldest step whose table-only events the viewer may still read (None: all).

    A seat reads a table-only action until its own next move; a spectator until the next step
    resolves. Once the match is over every event is readable, as in the audit.
    """
    match = snapshot.match
    if match.is_over or not any(row.table_only for row in rows):
        return None
    if snapshot.you is None:
        return match.step - 1
    last_move = Move.objects.filter(match=match, seat=snapshot.you).aggregate(last=Max("step"))
    return last_move["last"] or 0
