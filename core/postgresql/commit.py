"""A change's write sent together with its transaction's ``COMMIT``: one round trip, not two.

The unit of work writes a change in one statement and its transaction then commits; psycopg
would send the write, wait, send ``COMMIT``, wait. ``write_with_commit`` sends both in one libpq
pipeline instead (``psycopg.pq``'s documented calls): the write as a statement prepared under
a name of ours (core/postgresql/named.py, prepared in the same message the first time),
``COMMIT``, one sync. The server runs them in order and skips the ``COMMIT`` if the write
fails, so a failed write commits nothing: the error is raised from the call, inside the
caller's ``atomic`` block, which rolls back, and no commit hook runs. On success the block's
own commit finds the transaction closed (psycopg sends nothing) and runs the commit hooks.

Only in the outermost ``atomic`` block (inside a nested one a savepoint may still roll the
write back), only with prepared statements on and no execute wrapper (``named.usable``); the
caller is the last to touch the transaction (``games/services/unit_of_work.py``).
"""

from __future__ import annotations

import time
from typing import Any

from psycopg import RawCursor, pq
from psycopg.adapt import PyFormat, Transformer

from core.postgresql import named, wire


def write_with_commit(connection: Any, sql: str, params: list[Any]) -> bool:
    """Send the write ``sql`` and the ``COMMIT`` now, in one round trip (module docstring);
    False when this connection cannot, and the caller runs the write alone."""
    if (
        connection.vendor != "postgresql"
        or len(connection.atomic_blocks) != 1
        or connection.savepoint_ids
        or connection.needs_rollback
    ):
        return False
    raw = named.usable(connection)
    if raw is None or raw.pgconn.transaction_status != pq.TransactionStatus.INTRANS:
        return False
    with connection.wrap_database_errors:
        _send_with_commit(connection, raw, sql, params)
    return True


def write_alone(connection: Any, sql: str, params: list[Any]) -> None:
    """Run the write ``sql`` now, alone (inside another ``atomic`` block: that block commits).
    With prepared statements on and no execute wrapper, through psycopg's documented
    ``RawCursor`` with the text's ``$n`` form converted once per process (``named.numbered``):
    psycopg's own cursor would scan a text of more than 50 parameters (a match's creation)
    again on every run."""
    raw = named.usable(connection)
    if raw is None:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        return
    started = time.monotonic()
    with connection.wrap_database_errors, RawCursor(raw) as cursor:
        cursor.execute(named.numbered(sql), params, prepare=True)
    named.log(connection, sql, started)


def _send_with_commit(connection: Any, raw: Any, sql: str, values: list[Any]) -> None:
    """Send ``sql`` and ``COMMIT`` in one round trip; raise the first error."""
    dumper = Transformer(raw)
    params = dumper.dump_sequence(values, [PyFormat.AUTO] * len(values))
    types, formats = dumper.types or (), dumper.formats
    name = named.name_of(raw, sql, types)
    names = named.prepared_names(raw)
    preparing = name not in names
    pgconn = raw.pgconn
    started = time.monotonic()
    with raw.lock:
        pgconn.enter_pipeline_mode()
        try:
            if preparing:
                text = named.numbered(sql).encode(raw.info.encoding)  # converted once per text
                pgconn.send_prepare(name.encode(), text, param_types=types)
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
    named.log(connection, f"{sql}; COMMIT", started)
    if preparing and results[0].status == pq.ExecStatus.COMMAND_OK:
        names.add(name)
    for result in results:
        if named.missing(result):
            names.discard(name)
        named.check(raw, result)
