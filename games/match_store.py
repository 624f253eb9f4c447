"""The hot paths' SQL, as text in one place: the reads of a match and the ratings' upsert.

A move locks its match with the seats and the open step's recorded moves; a poll reads the
match with its seats for the ETag (and the engine state for a body); the event feed reads a
page of events. On PostgreSQL each is one statement written here (the lock and the change's
write prepared once per connection: core/postgresql/own.py), and its rows become model
instances through Django's documented ``Model.from_db`` — or stay plain values where no
instance is needed (a 304 reads the ETag's columns from the row and builds nothing).
Everywhere else (SQLite, the embedded default) the same reads are ordinary querysets: the ORM
is the reference, and the statements here say the same thing in the SQL PostgreSQL runs.

A change's write is built apart, in games/write_statements.py. The rating upsert of a finishing
match (``ratings_upsert``) is the last of the hot paths' statements here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, router
from django.db.models import F, JSONField, Model, OuterRef, QuerySet, Subquery

from accounts.models import User
from core import json_codec
from games.models import Match, MatchEvent, Move, Rating, Seat


def json_column(value: Any) -> Any:
    """A JSON column read with plain SQL, as the driver hands it: text (Django's setting for
    psycopg, which JSONField decodes) or already decoded."""
    return json_codec.loads(value) if isinstance(value, str | bytes) else value


def _table(model: type[Model]) -> str:
    return f'"{model._meta.db_table}"'


@dataclass(frozen=True)
class Columns:
    """A model's columns in a statement (``alias``: its table's alias there), and how a row's
    slice of them becomes an instance."""

    model: type[Model]
    alias: str
    names: tuple[str, ...]
    sql: str
    #: Positions (within these columns) of the JSON columns, which arrive as text.
    json: tuple[int, ...]

    @classmethod
    def of(cls, model: type[Model], alias: str, *, without: tuple[str, ...] = ()) -> Columns:
        fields = [f for f in model._meta.concrete_fields if f.attname not in without]
        return cls(
            model=model,
            alias=alias,
            names=tuple(f.attname for f in fields),
            sql=", ".join(f'{alias}."{f.column}"' for f in fields),
            json=tuple(i for i, f in enumerate(fields) if isinstance(f, JSONField)),
        )

    def position(self, name: str) -> int:
        return self.names.index(name)

    def build(self, using: str, row: tuple[Any, ...], start: int) -> Any:
        values = list(row[start : start + len(self.names)])
        for i in self.json:
            values[i] = json_column(values[i])
        return self.model.from_db(using, list(self.names), values)


def _user_named(using: str, user_id: int | None, name: str | None) -> User | None:
    """A player as the hot reads show them: the id and the name, every other field deferred
    (read on first use, as Django reads any deferred field)."""
    if user_id is None or name is None:
        return None
    return User.from_db(using, ["id", "username"], [user_id, name])


def _postgresql(using: str) -> bool:
    return bool(connections[using].vendor == "postgresql")


# The match lock (games/locks.py): the seats and their match, both locked, each seat with its
# player's name and whether they have destinations outside the site (notify/offsite.py), and
# its recorded, unsealed move in the match's open step (steps.step_moves).

_LOCK_SEAT = Columns.of(Seat, "s")
_LOCK_MATCH = Columns.of(Match, "m")
_LOCK_SQL = (
    f'SELECT {_LOCK_SEAT.sql}, {_LOCK_MATCH.sql}, u."offsite_channels", u."username",'
    f' (SELECT mv."payload" FROM {_table(Move)} mv WHERE mv."match_id" = s."match_id"'
    ' AND mv."step" = m."step" AND mv."seat" = s."index" AND mv."payload" IS NOT NULL LIMIT 1)'
    f' FROM {_table(Seat)} s INNER JOIN {_table(Match)} m ON s."match_id" = m."id"'
    f' LEFT OUTER JOIN {_table(User)} u ON s."user_id" = u."id"'
    ' WHERE s."match_id" = %s ORDER BY s."index" ASC FOR UPDATE OF s, m'
)


def lock_queryset(match_id: uuid.UUID) -> QuerySet[Seat]:
    return (
        Seat.objects.select_related("match")
        .select_for_update(of=("self", "match"))
        .annotate(
            user_offsite=F("user__offsite_channels"),
            user_name=F("user__username"),
            step_payload=Subquery(
                Move.objects.filter(
                    match_id=OuterRef("match_id"),
                    step=OuterRef("match__step"),
                    seat=OuterRef("index"),
                    payload__isnull=False,
                ).values("payload")[:1]
            ),
        )
        .filter(match_id=match_id)
        .order_by("index")
    )


@dataclass(frozen=True)
class LockedSeat:
    seat: Seat
    offsite: bool | None
    name: str | None
    step_payload: Any


#: How a caller's own transaction runs a statement and returns its rows
#: (``core.postgresql.own.OwnTransaction.rows``: prepared, on psycopg's cursor).
RowsOf = Callable[[str, list[Any]], list[tuple[Any, ...]]]


def lock_match_with_seats(
    match_id: uuid.UUID, *, rows: RowsOf | None = None
) -> tuple[Match | None, list[LockedSeat]]:
    """Lock the match row and its seat rows and read them: one statement. Call inside a
    transaction; ``rows``: run the statement with it (the unit of work's own transaction on
    PostgreSQL), else with a Django cursor. Every seat's ``match`` is the one match instance
    returned."""
    # The unit of work's own transaction is on the default database: no router to ask.
    using = DEFAULT_DB_ALIAS if rows is not None else router.db_for_write(Match)
    if not _postgresql(using):
        seats = list(lock_queryset(match_id).using(using))
        if not seats:
            return None, []
        match = seats[0].match
        locked = []
        for seat in seats:
            found = seat.__dict__
            locked.append(
                LockedSeat(
                    seat,
                    found.pop("user_offsite"),
                    found.pop("user_name"),
                    found.pop("step_payload"),
                )
            )
            seat.match = match
        return match, locked
    if rows is not None:
        fetched = rows(_LOCK_SQL, [match_id])
    else:
        with connections[using].cursor() as cursor:
            cursor.execute(_LOCK_SQL, [match_id])
            fetched = cursor.fetchall()
    if not fetched:
        return None, []
    match_at = len(_LOCK_SEAT.names)
    extra = match_at + len(_LOCK_MATCH.names)
    match = _LOCK_MATCH.build(using, fetched[0], match_at)
    locked = []
    for row in fetched:
        seat = _LOCK_SEAT.build(using, row, 0)
        seat.match = match
        payload = row[extra + 2]
        locked.append(LockedSeat(seat, row[extra], row[extra + 1], json_column(payload)))
    return match, locked


# The snapshot of a read: the match (its engine state only when asked for: a body needs it, a
# 304 does not) with its creator's name, and its seats with their players' names.

_SNAPSHOT_SEAT = Columns.of(Seat, "s")


@cache
def _snapshot_match(with_state: bool) -> Columns:
    return Columns.of(Match, "m", without=() if with_state else ("state",))


@cache
def _snapshot_sql(with_state: bool) -> str:
    return (
        f"SELECT {_SNAPSHOT_SEAT.sql}, {_snapshot_match(with_state).sql},"
        ' c."username", u."username"'
        f' FROM {_table(Seat)} s INNER JOIN {_table(Match)} m ON s."match_id" = m."id"'
        f' LEFT OUTER JOIN {_table(User)} c ON m."created_by_id" = c."id"'
        f' LEFT OUTER JOIN {_table(User)} u ON s."user_id" = u."id"'
        ' WHERE s."match_id" = %s ORDER BY s."index" ASC'
    )


_NAME_ONLY = [f.name for f in User._meta.concrete_fields if f.name not in ("id", "username")]


def snapshot_queryset(match_id: uuid.UUID, with_state: bool) -> QuerySet[Seat]:
    deferred = [f"user__{name}" for name in _NAME_ONLY]
    deferred += [f"match__created_by__{name}" for name in _NAME_ONLY]
    if not with_state:
        deferred.append("match__state")
    return (
        Seat.objects.select_related("match", "match__created_by", "user")
        .defer(*deferred)
        .filter(match_id=match_id)
        .order_by("index")
    )


class SnapshotRows:
    """A snapshot as read, before it becomes instances: the ETag's columns can be read from
    the rows alone, so a read answered 304 builds nothing."""

    def __init__(self, using: str, with_state: bool, rows: list[tuple[Any, ...]]) -> None:
        self.using, self.with_state, self.rows = using, with_state, rows
        self._seats: list[Seat] | None = None

    @classmethod
    def of_seats(cls, using: str, seats: list[Seat]) -> SnapshotRows:
        built = cls(using, True, [])
        built._seats = seats
        return built

    def __bool__(self) -> bool:
        return bool(self.rows) or bool(self._seats)

    def etag_columns(self) -> tuple[uuid.UUID, int, int, list[tuple[int, int | None]]]:
        """(match id, version, submitted mask, [(seat index, user id)])."""
        if self._seats is not None:
            match = self._seats[0].match
            seats = [(seat.index, seat.user_id) for seat in self._seats]
            return match.id, match.version, match.submitted_mask, seats
        at = len(_SNAPSHOT_SEAT.names)
        columns = _snapshot_match(self.with_state)
        first = self.rows[0]
        index, user = _SNAPSHOT_SEAT.position("index"), _SNAPSHOT_SEAT.position("user_id")
        return (
            first[at + columns.position("id")],
            first[at + columns.position("version")],
            first[at + columns.position("submitted_mask")],
            [(row[index], row[user]) for row in self.rows],
        )

    def seats(self) -> list[Seat]:
        """The seats, each with the one match instance as ``seat.match``."""
        if self._seats is not None:
            return self._seats
        using, columns = self.using, _snapshot_match(self.with_state)
        at = len(_SNAPSHOT_SEAT.names)
        names = at + len(columns.names)
        first = self.rows[0]
        match = columns.build(using, first, at)
        creator = _user_named(using, match.created_by_id, first[names])
        if creator is not None:
            match.created_by = creator
        seats = []
        for row in self.rows:
            seat = _SNAPSHOT_SEAT.build(using, row, 0)
            seat.match = match
            player = _user_named(using, seat.user_id, row[names + 1])
            if player is not None:
                seat.user = player
            seats.append(seat)
        self._seats = seats
        return seats


def snapshot_rows(match_id: uuid.UUID, *, with_state: bool) -> SnapshotRows:
    """The match row and its seats, in one query, on the database the router picks."""
    using = router.db_for_read(Match)
    if not _postgresql(using):
        seats = list(snapshot_queryset(match_id, with_state).using(using))
        for seat in seats[1:]:
            seat.match = seats[0].match
        return SnapshotRows.of_seats(using, seats)
    with connections[using].cursor() as cursor:
        cursor.execute(_snapshot_sql(with_state), [match_id])
        return SnapshotRows(using, with_state, cursor.fetchall())


_STATE_SQL = f'SELECT "state", "version", "submitted_mask" FROM {_table(Match)} WHERE "id" = %s'


def state_read(match_id: uuid.UUID) -> tuple[Any, int, int] | None:
    """The engine state with the two columns the ETag is made of, or None: no such match."""
    using = router.db_for_read(Match)
    db = connections[using]
    with db.cursor() as cursor:
        cursor.execute(_STATE_SQL, [Match._meta.pk.get_db_prep_value(match_id, db)])
        row = cursor.fetchone()
    if row is None:
        return None
    state, version, submitted = row
    return json_column(state), version, submitted


@dataclass(frozen=True, slots=True)
class EventRow:
    """A stored event as one viewer reads it: ``private`` holds that seat's entry only."""

    seq: int
    type: str
    step: int | None
    at: Any
    show_at: bool
    data: Any
    private: dict[str, Any]
    table_only: bool


_EVENTS_SQL = (
    'SELECT "seq", "type", "step", "at", "show_at", "data", "private" -> %s::text, "table_only"'
    f' FROM {_table(MatchEvent)} WHERE "match_id" = %s AND "seq" > %s ORDER BY "seq" LIMIT %s'
)


def event_rows(match: Match, after: int, limit: int, *, seat: int | None) -> list[Any]:
    """Up to ``limit`` events after ``after``. On PostgreSQL only the reading seat's private
    part is fetched (``event_for`` reads no other): no other seat's hidden data is ever decoded
    in this process."""
    using = router.db_for_read(MatchEvent)
    db = connections[using]
    if db.vendor != "postgresql":
        queryset = MatchEvent.objects.using(using).filter(match=match, seq__gt=after)
        return list(queryset.order_by("seq")[:limit])
    key = str(seat) if seat is not None else None
    with db.cursor() as cursor:
        cursor.execute(_EVENTS_SQL, [key, match.pk, after, limit])
        found = cursor.fetchall()
    return [
        EventRow(
            seq=seq,
            type=kind,
            step=step,
            at=at,
            show_at=show_at,
            data=json_column(data),
            private={key: json_column(mine)} if key is not None and mine is not None else {},
            table_only=table_only,
        )
        for seq, kind, step, at, show_at, data, mine, table_only in found
    ]


# --- The ratings of a finishing match ----------------------------------------------------------

_RATING_COLUMNS = (
    "id",
    "user_id",
    "game",
    "mu",
    "sigma",
    "ordinal",
    "rated_matches",
    "opponents",
    "played",
    "won",
    "updated_at",
)


def ratings_upsert(game: str, ids: list[int], *, mu: float, sigma: float) -> list[Rating]:
    """The rating rows of users ``ids`` (ascending) in ``game``, locked, the missing ones
    created at (``mu``, ``sigma``): one statement on PostgreSQL, an upsert whose no-op update
    locks the existing rows (games/locks.py, ``ratings_lock``, says when and why)."""
    table = _table(Rating)
    values = ", ".join(["(%s, %s, %s, %s, %s, 0, 0, 0)"] * len(ids))
    params: list[int | str | float] = []
    for user_id in ids:
        params += [user_id, game, mu, sigma, mu - 3 * sigma]
    sql = (
        f"INSERT INTO {table} (user_id, game, mu, sigma, ordinal, rated_matches, played, won) "
        f"VALUES {values} ON CONFLICT (user_id, game) DO UPDATE SET user_id = EXCLUDED.user_id "
        f"RETURNING {', '.join(_RATING_COLUMNS)}"
    )
    using = router.db_for_write(Rating)
    with connections[using].cursor() as cursor:
        cursor.execute(sql, params)
        rows = [
            Rating.from_db(using, list(_RATING_COLUMNS), list(row)) for row in cursor.fetchall()
        ]
    return sorted(rows, key=lambda row: row.user_id)
