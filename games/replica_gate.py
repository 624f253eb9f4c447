"""Whether a read marked for the replica (games/routers.py) may go there now: read-your-writes
and the replica's lag, kept in Redis so that every web process agrees, never in process memory.

Two keys, read together in one ``MGET`` (the one Redis read of such a read):

- ``facedown:replica:wrote:<account>``: when the account's last write committed (epoch
  seconds), written after every write request it made that succeeded
  (``games.replica_reader``), without waiting for Redis's reply (``replica_store_register``:
  the live bus's publisher), so a move costs no round trip for it.
- ``facedown:replica:status``: up to which moment the replica has every commit of the primary,
  and how far behind it was, as measured last (``measure``); it lives
  ``FACEDOWN_REPLICA_CHECK_SECONDS``, and the first read that finds it gone measures again.

A read goes to the replica only if the replica was at most ``FACEDOWN_REPLICA_MAX_LAG_SECONDS``
behind and has replayed past the reader's last write: a client never reads older data than it
wrote, however long the replica lags. The replica down, not streaming, not a copy of this
primary, or Redis unreachable: the read goes to the primary, without an error.

The moment compared is a time, not a log position (which would cost a query on every write):
the write's is taken after its commit on the web machine's clock; the replica's is the commit
timestamp of the last transaction it replayed (the primary's clock) or, when it had replayed
everything the primary had flushed, the moment the measurement began (the measuring machine's
clock). Clocks must agree to within ``CLOCK_MARGIN`` (NTP keeps them to milliseconds).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from django.conf import settings
from django.db import DatabaseError, connections

logger = logging.getLogger(__name__)

REPLICA = "replica"
PRIMARY = "default"
STATUS_KEY = "facedown:replica:status"
#: The replica's state when it cannot be used: it has nothing, infinitely behind.
UNUSABLE = (-math.inf, math.inf)
#: Seconds a write must precede what the replica has, for clocks of machines a little apart.
CLOCK_MARGIN = 0.25


def wrote_key(account_id: int) -> str:
    return f"facedown:replica:wrote:{account_id}"


class ReplicaStore(Protocol):
    """The shared store of the two keys (Redis)."""

    def send(self, commands: Sequence[tuple[str, ...]]) -> None:
        """Send the commands without waiting for replies (a failure is logged, not raised)."""

    def read(self, keys: list[str]) -> list[bytes | str | None] | None:
        """The keys' values in one round trip; None without a shared store."""


_store: ReplicaStore | None = None
#: Who reads in this request (a function: the account is found only when a read needs it).
_reader: ContextVar[Callable[[], int | None] | None] = ContextVar(
    "facedown_replica_reader", default=None
)


def replica_store_register(store: ReplicaStore) -> None:
    """The store (an app above registers it in its ``ready``); without one, every read marked
    for the replica goes to the primary: read-your-writes needs a store all processes share."""
    global _store
    _store = store


@contextmanager
def reading_as(account: Callable[[], int | None]) -> Iterator[None]:
    """Reads inside are made for ``account()`` (None: anonymous)."""
    token = _reader.set(account)
    try:
        yield
    finally:
        _reader.reset(token)


def wrote(account_id: int, at: float | None = None) -> None:
    """Note that the account's write has committed (``at``: now). It expires once any replica
    allowed to serve reads must have it."""
    if _store is None:
        return
    keep = settings.FACEDOWN_REPLICA_MAX_LAG_SECONDS + settings.FACEDOWN_REPLICA_CHECK_SECONDS
    moment = time.time() if at is None else at
    milliseconds = str(int(keep * 1000) + 1000)
    _store.send([("SET", wrote_key(account_id), repr(moment), "PX", milliseconds)])


def replica_allowed() -> bool:
    """Whether this request's reader may read from the replica now (one Redis read; a
    measurement of the replica when its status has expired)."""
    if _store is None:
        return False
    reader = _reader.get()
    account = reader() if reader is not None else None
    keys = [STATUS_KEY] if account is None else [STATUS_KEY, wrote_key(account)]
    try:
        values = _store.read(keys)
    except Exception as exc:  # Redis unreachable: the primary answers instead
        logger.warning("replica gate: Redis unreachable (%s); reading the primary", _named(exc))
        return False
    if values is None:
        return False
    status = _parsed(values[0])
    if status is None:
        status = measure()
        status_note(status)
    caught_up_to, lag = status
    last_write = _parsed_float(values[1]) if len(values) > 1 else None
    if lag > settings.FACEDOWN_REPLICA_MAX_LAG_SECONDS:
        return False
    return last_write is None or last_write + CLOCK_MARGIN < caught_up_to


def replica_failed(exc: BaseException) -> None:
    """A read on the replica failed: none go there until the next measurement."""
    logger.warning(
        "replica gate: a read failed on the replica (%s); reading the primary", _named(exc)
    )
    status_note(UNUSABLE)


def status_note(status: tuple[float, float]) -> None:
    if _store is None:
        return
    milliseconds = str(max(1, int(settings.FACEDOWN_REPLICA_CHECK_SECONDS * 1000)))
    text = f"{status[0]!r} {status[1]!r}"
    _store.send([("SET", STATUS_KEY, text, "PX", milliseconds)])


def measure() -> tuple[float, float]:
    """(the moment up to which the replica has every commit, how far behind it is), both in
    seconds; ``UNUSABLE`` when it cannot serve. Two short queries: the primary's flushed log
    position, then the replica's replay position compared with it."""
    now = time.time()
    with connections[PRIMARY].cursor() as cursor:
        cursor.execute(_PRIMARY_STATE)
        system, started, primary_recovering = _row(cursor.fetchone())
        if primary_recovering:
            return UNUSABLE
        cursor.execute("SELECT pg_current_wal_flush_lsn()::text")
        (flushed,) = _row(cursor.fetchone())
    try:
        with connections[REPLICA].cursor() as cursor:
            cursor.execute(_REPLICA_STATE, [flushed])
            same, same_start, recovering, streaming, replayed, replayed_at = _row(cursor.fetchone())
    except DatabaseError as exc:
        logger.warning("replica gate: the replica cannot serve (%s)", _named(exc))
        connections[REPLICA].close()  # a new connection at the next measurement
        return UNUSABLE
    if int(same) != int(system):
        return UNUSABLE  # a database of another cluster: it never receives this one's commits
    if not recovering:
        # The primary itself under another name has every commit; a promoted copy none to come.
        return (math.inf, 0.0) if same_start == started else UNUSABLE
    if replayed:
        return (now, 0.0)
    if not streaming or replayed_at is None:
        return UNUSABLE
    return (float(replayed_at), max(0.0, now - float(replayed_at)))


_PRIMARY_STATE = """
SELECT system_identifier, pg_postmaster_start_time(), pg_is_in_recovery()
FROM pg_control_system()
"""
_REPLICA_STATE = """
SELECT system_identifier,
       pg_postmaster_start_time(),
       pg_is_in_recovery(),
       EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming'),
       coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, false),
       extract(epoch FROM pg_last_xact_replay_timestamp())
FROM pg_control_system()
"""


def _named(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).strip()}"


def _row(row: tuple[Any, ...] | None) -> tuple[Any, ...]:
    assert row is not None  # each query above answers one row
    return row


def _parsed(value: bytes | str | None) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        caught_up_to, lag = value.split()
        return float(caught_up_to), float(lag)
    except ValueError:
        return None


def _parsed_float(value: bytes | str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None
