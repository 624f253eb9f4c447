"""One change to a locked match: the rows it adds, the events it appends, and its save.

Every service that changes a match builds one ``Transition`` after ``locks.match_lock_with_seats``
and calls ``save`` once at the end, so a change costs the same few round trips however many
steps it resolves (forced steps included): one INSERT of moves, one of events, one UPDATE.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Q
from django.db.models.sql import InsertQuery, UpdateQuery
from django.utils import timezone

from games.catalog import get_engine
from games.engine.protocol import Engine
from games.models import Match, MatchEvent, Move, Seat
from games.services.effects import follow_ups_schedule


@dataclass
class Transition:
    match: Match
    seats: list[Seat]
    now: datetime = field(default_factory=timezone.now)
    moves: list[Move] = field(default_factory=list)
    events: list[MatchEvent] = field(default_factory=list)
    public_change: bool = False
    # Set when a step opened with a deadline: the deadline watch is scheduled on commit.
    deadline_set: bool = False
    # Set by services: match fields written by ``save`` besides the bookkeeping ones.
    changed_fields: set[str] = field(default_factory=set)

    @property
    def engine(self) -> Engine:
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

    def emit(
        self,
        type: str,
        *,
        data: Any = None,
        step: int | None = None,
        private: dict[int, dict[str, Any]] | None = None,
        show_at: bool = True,
        table_only: bool = False,
    ) -> None:
        """Append an event every viewer can see exists; ``version`` rises once on save."""
        self.match.last_seq += 1
        self.events.append(
            MatchEvent(
                match=self.match,
                seq=self.match.last_seq,
                type=type,
                step=step,
                at=self.now,
                show_at=show_at,
                data=data,
                private={str(k): v for k, v in (private or {}).items()},
                table_only=table_only,
            )
        )
        self.public_change = True

    def save(self) -> None:
        fields = set(self.changed_fields)
        if self.public_change:
            self.match.version += 1
            fields |= {"version", "last_seq"}
        if connection.vendor == "postgresql" and fields:
            _write_in_one_statement(self.match, sorted(fields), self.moves, self.events)
        else:
            if self.moves:
                Move.objects.bulk_create(self.moves)
            if self.events:
                MatchEvent.objects.bulk_create(self.events)
            if fields:
                self.match.save(update_fields=sorted(fields))
        follow_ups_schedule(
            match=self.match, seats=self.seats, now=self.now, deadline_set=self.deadline_set
        )


def _write_in_one_statement(
    match: Match, fields: list[str], moves: list[Move], events: list[MatchEvent]
) -> None:
    """The change's new moves and events and its match update as one PostgreSQL statement
    (data-modifying WITH clauses): one round trip instead of three on the move path. The SQL
    of each part is Django's own, so values are prepared exactly as ``bulk_create`` and
    ``save(update_fields=…)`` would prepare them. Unlike ``bulk_create`` it does not fetch the
    new rows' ids: a Transition's moves and events are never used again after ``save``."""
    parts: list[str] = []
    params: list[Any] = []
    batches: list[tuple[type[Any], list[Any]]] = [(Move, moves), (MatchEvent, events)]
    for model, rows in batches:
        if not rows:
            continue
        insert = InsertQuery(model)
        insert.insert_values([f for f in model._meta.concrete_fields if not f.primary_key], rows)
        ((sql, values),) = insert.get_compiler(connection=connection).as_sql()
        parts.append(sql)
        params.extend(values)
    update = UpdateQuery(Match)
    update.add_update_values({name: getattr(match, name) for name in fields})
    update.add_q(Q(pk=match.pk))
    sql, values = update.get_compiler(connection=connection).as_sql()
    with_clauses = ", ".join(f"write_{i} AS ({part})" for i, part in enumerate(parts))
    statement = f"WITH {with_clauses} {sql}" if parts else sql
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, *values])
        if cursor.rowcount != 1:  # as save(update_fields=…) would refuse to go on
            raise Match.DoesNotExist(f"match {match.pk} was not updated")
