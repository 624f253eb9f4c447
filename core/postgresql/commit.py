"""A change's last write sent together with its ``COMMIT``: one round trip, not two.

The unit of work writes a change in one statement and its transaction then commits; psycopg
sends the write, waits, sends ``COMMIT``, waits. Here the write is held back (``hold``) and
leaves with the ``COMMIT`` in one libpq pipeline: the write as a statement prepared under a name
of ours (core/postgresql/named.py, prepared in the same message the first time), ``COMMIT``,
one sync. The server runs them in order and skips the ``COMMIT`` if the write fails, so a
failed write still commits nothing: the error is raised from the commit, Django's ``atomic``
rolls back, and no commit hook runs.

A held write never changes the order of statements: any other statement on the connection
sends it first, as it would have been sent (the backend's ``_cursor``); a rollback drops it.
Only the outermost ``atomic`` block holds a write (inside a nested block a savepoint may still
roll it back), only with prepared statements on and no execute wrapper (``named.usable``).
The libpq pipeline is used directly, not psycopg's ``Pipeline``, whose Python machinery cost
more than the round trip it saves (docs/benchmarks.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from psycopg import pq
from psycopg.adapt import PyFormat, Transformer

from core.postgresql import named, wire


@dataclass(frozen=True)
class HeldWrite:
    sql: str
    params: list[Any]


def hold(connection: Any, sql: str, params: list[Any]) -> bool:
    """Hold the write ``sql`` back to go with the ``COMMIT`` (module docstring); False when
    this connection cannot, and the caller runs it now."""
    if (
        getattr(connection, "held_write", False) is False  # not this project's backend
        or len(connection.atomic_blocks) != 1
        or connection.savepoint_ids
        or connection.needs_rollback
    ):
        return False
    raw = named.usable(connection)
    if raw is None or raw.pgconn.transaction_status != pq.TransactionStatus.INTRANS:
        return False
    if connection.held_write is not None:
        connection.held_write_send()
    connection.held_write = HeldWrite(sql, params)
    return True


def send_with_commit(connection: Any, raw: Any, write: HeldWrite) -> None:
    """Send ``write`` and ``COMMIT`` in one round trip; raise the first error."""
    dumper = Transformer(raw)
    params = dumper.dump_sequence(write.params, [PyFormat.AUTO] * len(write.params))
    types, formats = dumper.types or (), dumper.formats
    name = named.name_of(raw, write.sql, types)
    names = named.prepared_names(raw)
    preparing = name not in names
    pgconn = raw.pgconn
    started = time.monotonic()
    with raw.lock:
        pgconn.enter_pipeline_mode()
        try:
            if preparing:
                sql = named.numbered(write.sql).encode(raw.info.encoding)  # converted once per text
                pgconn.send_prepare(name.encode(), sql, param_types=types)
            pgconn.send_query_prepared(name.encode(), params, param_formats=formats)
            pgconn.send_query_params(b"COMMIT", None)
            pgconn.pipeline_sync()
            wire.send(pgconn)
            results = []
            for _ in range(3 + preparing):  # (the preparation,) the write, COMMIT, the sync
                results.extend(wire.fetch_many(pgconn))
        finally:
            if pgconn.pipeline_status != pq.PipelineStatus.OFF:
                pgconn.exit_pipeline_mode()
    named.log(connection, f"{write.sql}; COMMIT", started)
    if preparing and results[0].status == pq.ExecStatus.COMMAND_OK:
        names.add(name)
    for result in results:
        if named.missing(result):
            names.discard(name)
        named.check(raw, result)
