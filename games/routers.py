"""Read replicas: which reads may go to ``DATABASE_REPLICA_URL`` (alias ``replica``).

Only reads that a replica's lag cannot make wrong, and that a service marks as such with
``replica_reads()`` (or ``from_replica`` / ``replica_or_primary``): lists of finished matches,
the audit transcript of a match over for more than ``FACEDOWN_REPLICA_MIN_AGE_SECONDS``,
players' profiles, leaderboards, and finished tournaments' standings and exports. Everything
else — every live match read, every lock, every write — goes to the primary: the router answers
``default`` outside a ``replica_reads()`` block, and for every write inside one.

Entering a block decides once where its reads go (games/replica_gate.py): to the replica only
if it is configured, no further behind than ``FACEDOWN_REPLICA_MAX_LAG_SECONDS`` and has the
reader's own last write; else to the primary. A read the replica fails (down, restarting) is
made again on the primary by ``from_replica``'s callers, and the replica is left alone until
it is measured again.

A service that reads a row the replica may not have yet (replication lag) checks what it
read and reads again from the primary when it is missing or incomplete (``audit.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from django.db import DatabaseError, connections

from games.replica_gate import PRIMARY, REPLICA, replica_allowed, replica_failed

T = TypeVar("T")

_read_alias: ContextVar[str] = ContextVar("facedown_read_alias", default=PRIMARY)


def replica_configured() -> bool:
    return REPLICA in connections.settings


def read_alias() -> str:
    """Where a read made now goes: the replica inside a ``replica_reads()`` that chose it."""
    return _read_alias.get()


@contextmanager
def replica_reads() -> Iterator[str]:
    """Reads inside go to the replica if it is configured and may serve this reader now
    (games/replica_gate.py); yields the alias they go to. The hook for every read that may
    be stale by a few seconds: finished lists, old audits, profiles, leaderboards."""
    alias = REPLICA if replica_configured() and replica_allowed() else PRIMARY
    token = _read_alias.set(alias)
    try:
        yield alias
    finally:
        _read_alias.reset(token)


@contextmanager
def primary_reads() -> Iterator[str]:
    """Reads inside go to the primary, even within ``replica_reads()`` (the fallback)."""
    token = _read_alias.set(PRIMARY)
    try:
        yield PRIMARY
    finally:
        _read_alias.reset(token)


def from_replica(read: Callable[[], T | None]) -> T | None:
    """``read()`` on the replica when this reader may use it now; None when it may not, when
    the replica failed (noted: the next reads go to the primary), or when ``read()`` found
    the replica lacking something (it answers None then)."""
    with replica_reads() as alias:
        if alias != REPLICA:
            return None
        try:
            return read()
        except DatabaseError as exc:
            replica_failed(exc)
            connections[REPLICA].close()  # a new connection on its next use
            return None


def replica_or_primary(read: Callable[[], T]) -> T:
    """``read()`` from the replica if it may serve it (``from_replica``), else the primary."""
    found = from_replica(read)
    if found is not None:
        return found
    with primary_reads():
        return read()


class ReplicaRouter:
    """Installed always (``DATABASE_ROUTERS``); routes to the replica only as above."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        return read_alias()

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        return PRIMARY

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        # A physical replica receives the schema from its primary; ``migrate`` is only ever
        # run on ``default`` (the one-off migrate service).
        return None
