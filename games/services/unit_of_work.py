"""The one door for every change to a match: a unit of work.

    with match_change(match_id) as tx:
        ...check, then change tx.match, tx.seats, tx.add_move(…), tx.emit(…)

On PostgreSQL the change runs in a transaction of its own (core/postgresql/own.py): ``BEGIN``
travels with the lock of the match row and its seat rows (``locks.match_lock_for_change``: the
documented lock order), and the change's one write with the ``COMMIT``: two round trips however
many steps it resolves. Inside another ``atomic`` block, or on SQLite (the embedded default),
it runs in Django's ``atomic`` instead; a change inside another change joins it.

The body checks and changes things in memory only: match and seat fields are assigned directly
(the unit of work compares them with what it read), new moves are added, recorded moves
updated, events emitted. On a clean exit the services' own work that must commit with the
change runs (``in_transaction``: the next match of a series, void conditional rules), and
everything is written in one statement on PostgreSQL (data-modifying ``WITH`` clauses: new
moves, new events, move and seat updates, and the match update; for a new match, its row and
its seats' rows too). Once committed, and outside the lock, the change's after-commit work runs
(``tx.after_commit``: bot moves, the deadline watch, jobs) and then ``change_committed`` is sent
(games/services/follow_ups.py: notifications, live publication, metrics, tournaments). An
exception rolls everything back and runs nothing.

JSON values (state, scores, memories) are replaced, never mutated in place: the engine never
mutates, and an in-place change would not be seen as a change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from operator import attrgetter
from typing import Any, NamedTuple

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, models, transaction
from django.utils import timezone

from cardgames.engines.protocol import Engine
from core.postgresql.own import OwnTransaction, own_transaction
from games.catalog import get_engine
from games.events import NewEvent, event_check
from games.locks import StepMoves, match_lock_for_change
from games.models import Match, MatchEvent, Move, Seat
from games.services.follow_ups import bots_and_deadline_schedule, change_committed
from games.services.in_transaction import in_transaction_steps
from games.write_statements import NotPlain, insert_sql, update_sql

logger = logging.getLogger(__name__)


class _Fields:
    """A model's fields but its key, read from a row at once (``attrgetter``, in C: a match's
    thirty fields were read one ``getattr`` at a time, three times per change)."""

    def __init__(self, model: type[models.Model]) -> None:
        self.names = tuple(f.attname for f in model._meta.concrete_fields if not f.primary_key)
        assert len(self.names) > 1  # attrgetter of one name returns the value, not a tuple
        self.read: Callable[[models.Model], tuple[Any, ...]] = attrgetter(*self.names)


_MATCH_FIELDS = _Fields(Match)
_SEAT_FIELDS = _Fields(Seat)


def _changed(row: models.Model, fields: _Fields, before: tuple[Any, ...]) -> dict[str, Any]:
    after = fields.read(row)
    if after == before:  # element by element: identity first, then ==, as below
        return {}
    return {
        name: new
        for name, old, new in zip(fields.names, before, after, strict=True)
        if new is not old and new != old
    }


class MatchChange:
    """One change to one locked match: what it read, and what it will write."""

    def __init__(
        self,
        match: Match,
        seats: list[Seat],
        *,
        created: bool = False,
        insert: bool = False,
        step_moves: StepMoves | None = None,
        now: datetime | None = None,
    ) -> None:
        self.match = match
        self.seats = seats
        #: The open step's moves as the lock read them (``steps.step_moves`` checks them).
        self.step_moves_read = step_moves
        #: The change's time: every timestamp it writes, and every clock it runs, is from it.
        self.now: datetime = now or timezone.now()
        self.moves: list[Move] = []
        self.events: list[MatchEvent] = []
        self._move_updates: dict[int, tuple[Move, dict[str, Any]]] = {}
        self._event_updates: dict[int, tuple[MatchEvent, dict[str, Any]]] = {}
        self._row_updates: list[tuple[models.Model, dict[str, Any]]] = []
        self._match_before = _MATCH_FIELDS.read(match)
        self._seats_before = [_SEAT_FIELDS.read(seat) for seat in seats]
        #: Who held each seat when the change locked it (``holders_changed``).
        self.holders_read = tuple(seat.user_id for seat in seats)
        # A match inserted in this transaction starts at version 1 with its creation event.
        self._created = created
        # The match and its seats are not in the database yet: the write inserts them with
        # the rest of the change, as they are then (``match_new``).
        self._insert = insert
        self.wrote = False
        self._after: list[Callable[[], object]] = []

    # --- what services read ---------------------------------------------------------------

    @cached_property
    def engine(self) -> Engine:
        # Looked up once per change (the services ask for it several times a move).
        engine = get_engine(self.match.game)
        assert engine is not None, f"unknown game {self.match.game!r}"
        return engine

    @property
    def forfeited(self) -> frozenset[int]:
        return frozenset(seat.index for seat in self.seats if seat.forfeited)

    def active_seats(self) -> list[int]:
        return [seat.index for seat in self.seats if not seat.forfeited]

    def seat_of(self, user_id: int | None) -> Seat | None:
        if user_id is None:
            return None
        return next((seat for seat in self.seats if seat.user_id == user_id), None)

    def holders_changed(self) -> bool:
        """Whether a seat changed hands (or was left) in this change: every reader of the
        match must then learn again which seat, if any, is theirs (live streams)."""
        return tuple(seat.user_id for seat in self.seats) != self.holders_read

    def field_changed(self, name: str) -> bool:
        """Whether the match's field ``name`` differs from what was read (or inserted)."""
        old = self._match_before[_MATCH_FIELDS.names.index(name)]
        new = getattr(self.match, name)
        return new is not old and new != old

    def step_payloads(self) -> dict[int, dict[str, Any]]:
        """The moves (payloads) this change recorded or revealed in the open step, by seat."""
        step = self.match.step
        mine = {m.seat: dict(m.payload) for m in self.moves if m.step == step and m.payload}
        for move, fields in self._move_updates.values():
            if move.step == step and fields.get("payload") is not None:
                mine[move.seat] = dict(fields["payload"])
        return mine

    # --- what services change -------------------------------------------------------------

    def add_move(self, move: Move) -> None:
        self.moves.append(move)

    def update_move(self, move: Move, **fields: Any) -> None:
        """Change a recorded move (a reveal, or a stand-in filling a committed row)."""
        assert move.pk is not None, "update_move takes a recorded move"
        for name, value in fields.items():
            setattr(move, name, value)
        _, pending = self._move_updates.setdefault(move.pk, (move, {}))
        pending.update(fields)

    def rewrite_event_data(self, event: MatchEvent, data: Any) -> None:
        """Replace a recorded event's data. Only for erasure (a closed account's name): the
        history is otherwise append-only, and its shape must stay the catalogue's."""
        assert event.pk is not None and event.match_id == self.match.pk
        event.data = data
        self._event_updates[event.pk] = (event, {"data": data})

    def update_row(self, row: models.Model, **fields: Any) -> None:
        """Change a row of another table that this change has locked (a player's rating,
        locked by ``locks.ratings_lock``): it is written with the rest, in the same statement."""
        assert row.pk is not None, "update_row takes a stored row"
        for name, value in fields.items():
            setattr(row, name, value)
        self._row_updates.append((row, fields))

    def emit(self, new: NewEvent, *, step: int | None = None, table_only: bool = False) -> None:
        """Append an event of the catalogue (``events.SEAT_LEFT({"seat": 1})``); the match's
        ``version`` rises once on save."""
        event, data, private = new.type, new.data, new.private
        if settings.FACEDOWN_CHECK_EVENTS:
            event_check(event, data, private, table_only=table_only)
        self.match.last_seq += 1
        self.events.append(
            MatchEvent(
                match=self.match,
                seq=self.match.last_seq,
                type=event.name,
                step=step,
                at=self.now,
                show_at=event.show_at,
                data=data,
                private={str(k): v for k, v in private.items()},
                table_only=table_only,
            )
        )

    # --- the write ------------------------------------------------------------------------

    def save(self) -> Statement | None:
        """Collect everything into one write and hand the after-commit work over. On
        PostgreSQL the write is returned, not sent: the caller, the last to touch the
        transaction, sends it (``_Scope.finish``); elsewhere it is written here. None when
        there is nothing to write."""
        if self.events and not self._created:
            self.match.version += 1
        for seat in self.seats:  # the denormalised flag ``awaiting_me`` reads
            seat.awaiting_move = seat.awaited_in(self.match)
        inserted = self._insert
        match_fields = {} if inserted else _changed(self.match, _MATCH_FIELDS, self._match_before)
        seat_updates = [
            (seat, changed)
            for seat, before in zip(self.seats, self._seats_before, strict=True)
            if not inserted and (changed := _changed(seat, _SEAT_FIELDS, before))
        ]
        writes = Writes(
            match=self.match,
            match_fields=match_fields,
            match_insert=inserted,
            seat_inserts=self.seats if inserted else [],
            moves=self.moves,
            events=self.events,
            seat_updates=seat_updates,
            move_updates=list(self._move_updates.values()),
            event_updates=list(self._event_updates.values()),
            row_updates=self._row_updates,
        )
        if writes.empty:
            return None
        default = connections[DEFAULT_DB_ALIAS]
        statement = None
        if default.vendor == "postgresql":
            statement = _one_statement(writes, default)
        if statement is None:  # SQLite (the embedded default), or a value only the ORM writes
            _write_in_steps(writes)
        self._match_before = _MATCH_FIELDS.read(self.match)
        self._seats_before = [_SEAT_FIELDS.read(seat) for seat in self.seats]
        self._row_updates = []
        self._insert = False
        self.wrote = True
        bots_and_deadline_schedule(
            self.after_commit,
            match=self.match,
            seats=self.seats,
            now=self.now,
            deadline_changed="deadline" in match_fields or (inserted and bool(self.match.deadline)),
        )
        for step in in_transaction_steps():
            step(self)
        return statement

    def after_commit(self, work: Callable[[], object]) -> None:
        """Run ``work()`` once this change has committed, outside its lock; never after a
        rollback. (``transaction.on_commit`` may not be called inside a change.)"""
        self._after.append(work)

    @property
    def has_after_commit(self) -> bool:
        return bool(self._after)

    def committed(self) -> None:
        """The change has committed: its after-commit work, then ``change_committed`` (when it
        wrote something)."""
        for work in self._after:
            try:
                work()
            except Exception:
                logger.exception("after-commit work %r of match %s failed", work, self.match.pk)
        if not self.wrote:
            return
        for receiver, answer in change_committed.send_robust(sender=MatchChange, change=self):
            if isinstance(answer, Exception):
                logger.error("change_committed receiver %r failed", receiver, exc_info=answer)


@dataclass
class Writes:
    """What one change writes: new rows, and the fields that changed on existing ones."""

    match: Match
    match_fields: dict[str, Any]
    #: The match and ``seat_inserts`` are new: inserted with the change's final values.
    match_insert: bool
    seat_inserts: list[Seat]
    moves: list[Move]
    events: list[MatchEvent]
    seat_updates: list[tuple[Seat, dict[str, Any]]]
    move_updates: list[tuple[Move, dict[str, Any]]]
    event_updates: list[tuple[MatchEvent, dict[str, Any]]]
    row_updates: list[tuple[models.Model, dict[str, Any]]]

    @property
    def empty(self) -> bool:
        updates = self.seat_updates or self.move_updates or self.event_updates or self.row_updates
        new = self.match_insert or self.moves or self.events
        return not (self.match_fields or new or updates)


class Statement(NamedTuple):
    sql: str
    params: list[Any]


def _one_statement(writes: Writes, default: Any) -> Statement | None:
    """The whole change as one PostgreSQL statement (data-modifying WITH clauses). Each part's
    values are prepared exactly as ``bulk_create`` and ``save(update_fields=…)`` would prepare
    them (``games/write_statements.py``). New rows' ids are not fetched: a change's
    moves and events are never used again after the write. None when a value is one only
    the ORM writes (an expression: ``NotPlain``)."""
    try:
        return _statement(writes, default)
    except NotPlain:
        return None


def _statement(writes: Writes, default: Any) -> Statement:
    parts: list[tuple[str, Any]] = []
    match, match_fields = writes.match, writes.match_fields
    if writes.match_insert:
        # The seats' and events' foreign keys to the match are checked at commit (deferred),
        # so the match may be inserted by a clause of the same statement.
        parts.append(insert_sql(Match, [match], with_pk=True, connection=default))
    batches: list[tuple[type[models.Model], list[Any]]] = [
        (Seat, writes.seat_inserts),
        (Move, writes.moves),
        (MatchEvent, writes.events),
    ]
    for model, rows in batches:
        if rows:
            parts.append(insert_sql(model, rows, connection=default))
    for move, fields in writes.move_updates:
        parts.append(update_sql(Move, move.pk, fields, connection=default))
    for seat, fields in writes.seat_updates:
        parts.append(update_sql(Seat, seat.pk, fields, connection=default))
    for event, fields in writes.event_updates:
        parts.append(update_sql(MatchEvent, event.pk, fields, connection=default))
    for row, fields in writes.row_updates:
        parts.append(update_sql(type(row), row.pk, fields, connection=default))
    last: tuple[str, list[Any]]
    if match_fields:
        # As save(update_fields=…) refuses to update no row, the statement fails unless the
        # match row was updated: checked by the server, so it holds for a write sent with its
        # COMMIT too (core/postgresql/own.py), which no check afterwards could undo.
        sql, values = update_sql(Match, match.pk, match_fields, connection=default)
        parts.append((f"{sql} RETURNING 1", values))
        last = (_MATCH_UPDATED.format(len(parts) - 1), [])
    else:
        last = parts.pop()
    with_sql = ", ".join(f"write_{i} AS ({sql})" for i, (sql, _) in enumerate(parts))
    statement = f"WITH {with_sql} {last[0]}" if parts else last[0]
    values = [value for _, part in parts for value in part] + last[1]
    # By primary key and into append-only tables: a plan that never depends on the values.
    return Statement(statement, values)


# The match update is the last clause (write_N): anything but one row updated fails the cast,
# with the count in the error ("invalid input syntax for type integer: "0 match rows …"").
_MATCH_UPDATED = (
    "SELECT (CASE count(*) WHEN 1 THEN '1' ELSE count(*) || ' match rows updated, not 1' END)::int"
    " FROM write_{}"
)


def _write_in_steps(writes: Writes) -> None:
    """The same writes, one statement each (SQLite, the embedded default)."""
    if writes.match_insert:
        writes.match.save(force_insert=True)
        Seat.objects.bulk_create(writes.seat_inserts)
    if writes.moves:
        Move.objects.bulk_create(writes.moves)
    if writes.events:
        MatchEvent.objects.bulk_create(writes.events)
    for move, fields in writes.move_updates:
        Move.objects.filter(pk=move.pk).update(**fields)
    for seat, fields in writes.seat_updates:
        Seat.objects.filter(pk=seat.pk).update(**fields)
    for event, fields in writes.event_updates:
        MatchEvent.objects.filter(pk=event.pk).update(**fields)
    for row, fields in writes.row_updates:
        type(row)._default_manager.filter(pk=row.pk).update(**fields)
    if writes.match_fields:
        writes.match.save(update_fields=sorted(writes.match_fields))


class _Scope:
    """Where a change runs: its own transaction (``core/postgresql/own.py``), one already
    open that it joins, or Django's ``atomic`` (SQLite, or inside another ``atomic`` block)."""

    def __init__(self, own: OwnTransaction | None, joined: bool) -> None:
        self.own, self.joined = own, joined

    def lock_rows(self) -> Callable[[str, list[Any]], list[tuple[Any, ...]]] | None:
        return self.own.rows if self.own is not None else None

    def finish(self, tx: MatchChange, statement: Statement | None) -> None:
        """Write the change and hand its after-commit work over; in an own transaction of
        its own, with the ``COMMIT`` (one round trip)."""
        own = self.own
        if own is None:
            if statement is not None:
                with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
                    cursor.execute(statement.sql, statement.params)
            if tx.wrote or tx.has_after_commit:
                transaction.on_commit(tx.committed, robust=True)
            return
        if tx.wrote or tx.has_after_commit:
            own.after_commit(tx.committed)
        if self.joined:
            if statement is not None:
                own.execute(statement.sql, statement.params)
            return
        own.commit_with(*(statement or (None, ())))


#: The own transaction open in this thread (or task), which a nested change joins.
_open: ContextVar[OwnTransaction | None] = ContextVar("unit_of_work_open", default=None)


@contextmanager
def _scope(*, locking: bool) -> Iterator[_Scope]:
    """``locking``: the block's first statement is the match lock (sent with the ``BEGIN``);
    else the ``BEGIN`` goes first, alone."""
    open_own = _open.get()
    if open_own is not None:
        yield _Scope(open_own, joined=True)
        return
    default = connections[DEFAULT_DB_ALIAS]
    if default.vendor != "postgresql" or not transaction.get_autocommit():
        with transaction.atomic():
            yield _Scope(None, joined=False)
        return
    with own_transaction(DEFAULT_DB_ALIAS) as own:
        token = _open.set(own)
        try:
            if not locking:
                own.begin()
            yield _Scope(own, joined=False)
        finally:
            _open.reset(token)


@contextmanager
def match_change(match_id: Any, *, now: datetime | None = None) -> Iterator[MatchChange]:
    """Lock match ``match_id`` with its seats and collect one change to it (module docstring).
    ``now``: the change's time (default: the wall clock). Raises ``NotFound`` for an unknown
    id."""
    with _scope(locking=True) as scope:
        match, seats, step_moves = match_lock_for_change(match_id, rows=scope.lock_rows())
        tx = MatchChange(match, seats, step_moves=step_moves, now=now)
        yield tx
        scope.finish(tx, tx.save())


@contextmanager
def match_new(match: Match, seats: list[Seat]) -> Iterator[MatchChange]:
    """Collect the change that opens a new match; its write inserts the match and its seats
    with the change's events, as the change leaves them: on PostgreSQL one statement, sent with
    the ``COMMIT``. The seats' ids are not read back (nothing after a creation uses them; a
    change to the match later locks and reads its seats)."""
    with _scope(locking=False) as scope:
        tx = MatchChange(match, seats, created=True, insert=True)
        yield tx
        scope.finish(tx, tx.save())
