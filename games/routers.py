"""Read replicas: which reads may go to ``DATABASE_REPLICA_URL`` (alias ``replica``).

Only reads that a replica's lag cannot make wrong, and that a service marks as such with
``replica_reads()``: lists of finished matches, the audit transcript of a match over for more
than ``FACEDOWN_REPLICA_MIN_AGE_SECONDS``, and (later) leaderboards. Everything else — every
live match read, every lock, every write — goes to the primary: the router answers
``default`` outside a ``replica_reads()`` block, and for every write inside one. Without a
replica configured, ``replica_reads()`` changes nothing.

A service that reads a row the replica may not have yet (replication lag) checks what it
read and reads again from the primary when it is missing or incomplete (``audit.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import connections

REPLICA = "replica"
PRIMARY = "default"

_replica_reads: ContextVar[bool] = ContextVar("facedown_replica_reads", default=False)


def replica_configured() -> bool:
    return REPLICA in connections.settings


def read_alias() -> str:
    """Where a read made now goes: the replica inside ``replica_reads()`` when there is one."""
    return REPLICA if _replica_reads.get() and replica_configured() else PRIMARY


@contextmanager
def replica_reads() -> Iterator[str]:
    """Reads inside go to the replica (if configured); yields the alias they go to. The
    hook for every read that may be stale by a few seconds: finished lists, old audits,
    leaderboards."""
    token = _replica_reads.set(True)
    try:
        yield read_alias()
    finally:
        _replica_reads.reset(token)


@contextmanager
def primary_reads() -> Iterator[str]:
    """Reads inside go to the primary, even within ``replica_reads()`` (the fallback)."""
    token = _replica_reads.set(False)
    try:
        yield PRIMARY
    finally:
        _replica_reads.reset(token)


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
