"""What is read of a match for a viewer: the selectors (the match and its seats, its engine
state, the list's pages and seats, the event rows). ``games.services.presenters`` shapes what
they read into the resources a client sees; raw engine state never leaves these two modules.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.db import connection, connections, router, transaction
from django.db.models import Case, Exists, F, Max, OuterRef, Prefetch, Q, QuerySet, When
from django.utils.translation import gettext_noop

from accounts.models import User
from cardgames.engines.protocol import Engine
from core.errors import NotFound
from games import match_store
from games.catalog import get_engine
from games.models import Match, Move, Seat
from games.services.archive import archived_events, archived_moves

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


def snapshot_of(match: Match, user: User) -> MatchSnapshot:
    """A snapshot from a match whose seats were prefetched (lists)."""
    seats = list(match.seats.all())
    you = next((seat.index for seat in seats if seat.user_id == user.pk), None)
    return MatchSnapshot(match=match, seats=seats, you=you, viewer=user.pk)


_SEAT_TABLE, _USER_TABLE = Seat._meta.db_table, User._meta.db_table
# The seats of a page, with their players' names, as the queryset's prefetch finds them
# (ordered by index within each match), but only the columns the list shows.
_LISTED_SEATS_SQL = (
    'SELECT s."match_id", s."index", s."user_id", u."username", s."bot", s."accepted",'
    ' s."forfeited", s."controlled_by", s."held_until"'
    f' FROM "{_SEAT_TABLE}" s LEFT OUTER JOIN "{_USER_TABLE}" u ON u."id" = s."user_id"'
    ' WHERE s."match_id" IN ({}) ORDER BY s."index" ASC'
)


def listed_seats(page: list[ListedMatch]) -> list[list[tuple[Any, ...]]]:
    """The seats of each match of the page, in the page's order, as rows of
    ``_LISTED_SEATS_SQL``: one query for every seat of the page, no model instances."""
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
    return [seats[key] for key in keys]


def own_recorded_move(snapshot: MatchSnapshot, seat: int) -> Any:
    """Seat ``seat``'s recorded move in the open step (archived once the match is over)."""
    match = snapshot.match
    recorded = (
        Move.objects.filter(match=match, step=match.step, seat=seat)
        .values_list("payload", flat=True)
        .first()
    )
    if recorded is None and match.is_over:
        recorded = next(
            (
                move.payload
                for move in archived_moves(match) or []
                if (move.step, move.seat) == (match.step, seat)
            ),
            None,
        )
    return recorded


def event_rows(snapshot: MatchSnapshot, after: int, limit: int) -> list[Any]:
    """Up to ``limit`` event rows after ``after`` the snapshot's viewer may be shown (as
    stored, before the redaction), from the archive once the match's rows are archived."""
    match = snapshot.match
    rows: list[Any] = match_store.event_rows(match, after, limit, seat=snapshot.you)
    if not rows and match.is_over and after < match.last_seq:
        # Archived (games/services/archive.py): the same rows, rebuilt from its archive.
        rows = [row for row in archived_events(match) or [] if row.seq > after][:limit]
    return rows


def last_move_step(match: Match, seat: int) -> int:
    """The step of the seat's last move in the match (0: none)."""
    last_move = Move.objects.filter(match=match, seat=seat).aggregate(last=Max("step"))
    return last_move["last"] or 0
