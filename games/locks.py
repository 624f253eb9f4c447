"""Every row lock of the project is taken here (the match lock's statement is written with the
hot paths' other SQL in games/match_store.py).

Lock order:

1. A transaction locks at most one existing match, first, before it reads or writes any seat,
   move or event of that match: its match row together with its seat rows, in one statement.
   Seats, moves and events are only written while that lock is held, so no other lock is
   needed and no two transactions can deadlock on them. The sweep's ``SKIP LOCKED`` claim
   never waits, and it holds the claimed match row until that match's step has been expired,
   so sweeps running in several processes at once share the overdue matches between them
   instead of racing for them.
2. Then, only in the change that finishes a match, the rating rows of its human players in
   that game (``ratings_lock``), in ascending user-id order, created if missing in the same
   statement. Every finishing match locks ratings after its own match row and in that order,
   and nothing locks a match after a rating, so two finishing matches with players in common
   wait for each other but never deadlock. Bots have no rating rows (their ratings are
   fixed), so no row is a hot spot shared by every bot match.
3. A rematch or a series' next match is inserted while the previous match is locked: the new
   row is invisible to every other transaction until commit, so nobody can wait on it.

On SQLite (the embedded default) ``FOR UPDATE`` is a no-op and the IMMEDIATE transaction mode
serialises writers instead.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import NotFound
from games import match_store
from games.models import Match, Rating, Seat


def _uuid(value: uuid.UUID | str) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise NotFound(gettext_noop("No match with this id.")) from None


@dataclass(frozen=True)
class StepMoves:
    """The moves of the open step (``step``) the lock read with the seats, by seat. They come
    from the lock statement's snapshot: a move committed while it waited for the lock is
    missing, so they are used only where they cover every seat the locked (latest) match row
    says has moved; a recorded move's payload, once there, never changes."""

    step: int
    payloads: dict[int, Any]


def match_lock_with_seats(match_id: uuid.UUID | str) -> tuple[Match, list[Seat]]:
    """Lock the match row and its seat rows, and read them (``match_lock_for_change``)."""
    match, seats, _ = match_lock_for_change(match_id)
    return match, seats


def match_lock_for_change(
    match_id: uuid.UUID | str, *, rows: match_store.RowsOf | None = None
) -> tuple[Match, list[Seat], StepMoves]:
    """Lock the match row and its seat rows, and read them with the open step's recorded
    moves (``StepMoves``), in one round trip.

    The seat rows are locked too, not only read: under READ COMMITTED a statement that waited
    for a lock returns the latest version of the rows it locked, but rows it merely joined are
    read from its snapshot, so a waiter would see the seats as they were before the holder
    committed. Call inside a transaction; ``rows``: how the unit of work's own transaction
    runs a statement (``match_store.lock_match_with_seats``).
    """
    match, locked = match_store.lock_match_with_seats(_uuid(match_id), rows=rows)
    if match is None:
        raise NotFound(gettext_noop("No match with this id."))
    payloads: dict[int, Any] = {}
    seats = []
    for row in locked:
        seat = row.seat
        if row.step_payload is not None:
            payloads[seat.index] = row.step_payload
        # Read, not locked: whether the seat's player has destinations outside the site
        # (notify/offsite.py), so a change decides without a query whether to enqueue them,
        # and the player's name, which events and answers show (no query per seat for it).
        # ``seat.user`` is then that row with only its name loaded, any other field read on
        # first use, as Django reads a deferred field.
        seat.user_offsite = row.offsite  # type: ignore[attr-defined]
        if seat.user_id is not None and row.name is not None:
            seat.user = User.from_db(seat._state.db, ["id", "username"], [seat.user_id, row.name])
        seats.append(seat)
    return match, seats, StepMoves(match.step, payloads)


@contextmanager
def overdue_step_claim(
    *, now: datetime, skip: Collection[uuid.UUID] = ()
) -> Iterator[tuple[uuid.UUID, int] | None]:
    """Claim the active match whose deadline passed longest ago, or yield None if there is none.

    The claim is a row lock taken with ``SKIP LOCKED`` in a transaction that stays open for the
    ``with`` block: the caller expires the step inside it (its ``match_change`` re-locks the row
    it already holds, and becomes a savepoint of this transaction), and only then is the lock
    released. A second sweep meanwhile skips this match and claims the next. ``skip``: matches
    this sweep has already handled (or failed on), so one broken match is not claimed again.
    """
    with transaction.atomic():
        yield overdue_claim_query(now=now, skip=skip).first()


def overdue_claim_query(
    *, now: datetime, skip: Collection[uuid.UUID] = ()
) -> QuerySet[Match, tuple[uuid.UUID, int]]:
    """The claim's query (bench/queries.py measures it); run it in a transaction."""
    return (
        Match.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(status=Match.Status.ACTIVE, deadline__lte=now)
        .exclude(id__in=list(skip))
        .order_by("deadline")
        .values_list("id", "step")
    )


def overdue_steps(*, now: datetime, limit: int) -> list[tuple[uuid.UUID, int]]:
    """(match id, step) of active matches whose deadline has passed, oldest first, skipping
    rows another transaction holds. A look, not a claim: the locks end with this call, so
    ``overdue_sweep`` claims one match at a time with ``overdue_step_claim`` instead."""
    with transaction.atomic():
        return list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(status=Match.Status.ACTIVE, deadline__lte=now)
            .order_by("deadline")
            .values_list("id", "step")[:limit]
        )


def ratings_lock(game: str, users: Collection[int], *, mu: float, sigma: float) -> list[Rating]:
    """Lock the rating rows of ``users`` in ``game``, in ascending user-id order, creating the
    missing ones at (``mu``, ``sigma``); returns them in that order. One round trip on
    PostgreSQL: an upsert whose no-op update locks the existing rows. Call inside the change
    that finishes a match, after its match lock (module docstring)."""
    ids = sorted(set(users))
    if not ids:
        return []
    if connection.vendor != "postgresql":  # SQLite serialises writers: no row locks
        fresh = [
            Rating(user_id=i, game=game, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma) for i in ids
        ]
        Rating.objects.bulk_create(fresh, ignore_conflicts=True)
        return list(Rating.objects.filter(game=game, user_id__in=ids).order_by("user_id"))
    return match_store.ratings_upsert(game, ids, mu=mu, sigma=sigma)
