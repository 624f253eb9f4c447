"""A transaction's ``BEGIN`` sent together with its first query: one round trip, not two.

psycopg opens a transaction by sending ``BEGIN`` alone and waiting for the answer before it
sends the first query. On a move that was one of four round trips to PostgreSQL, and each costs
the web process a send, a wake-up and a receive (the largest single cost of a move in the live
profile, docs/benchmarks.md). So the unit of work's first statement, the match lock, is sent as
one simple-protocol message, ``BEGIN; EXECUTE name('…')``, the lock prepared under a name of
ours (core/postgresql/named.py: once per connection, one more round trip then), so the server
still neither parses nor plans it again.

Only for a statement whose parameters are UUIDs or integers (their literals are their text,
nothing to escape) and only when the connection is about to open a transaction: inside
``transaction.atomic`` before its first query, prepared statements on (a transaction-mode
pooler keeps per-connection statements from working: ``DB_PREPARED_STATEMENTS=0`` turns this
off too), and no execute wrapper installed (every wrapper must see every query). Otherwise the
caller runs the statement as usual. Should the statement have been removed behind our back, the
server's "does not exist" is answered by a rollback of the transaction just begun, the
statement prepared again and ``BEGIN; EXECUTE …`` sent again.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from psycopg import pq
from psycopg.adapt import Transformer

from core.postgresql import named


def _literal(value: Any) -> str | None:
    if isinstance(value, uuid.UUID):
        return f"'{value}'"
    if type(value) is int:
        return str(value)
    return None


def rows_beginning(
    connection: Any, sql: str, params: Sequence[Any]
) -> list[tuple[Any, ...]] | None:
    """The rows of ``sql`` run as the transaction's first statement, ``BEGIN`` in the same
    round trip; None when this connection cannot (module docstring): run it as usual then."""
    literals = [_literal(value) for value in params]
    if None in literals or not connection.in_atomic_block:
        return None
    raw = named.usable(connection)
    if raw is None or raw.autocommit:
        return None
    if raw.pgconn.transaction_status != pq.TransactionStatus.IDLE:
        return None
    name = named.name_of(raw, sql)
    begin = f"BEGIN; EXECUTE {name}({', '.join(literals)})"  # type: ignore[arg-type]
    with connection.wrap_database_errors:
        if name not in named.prepared_names(raw):
            named.prepare(raw, name, named.numbered(sql))
        result = named.run(connection, raw, begin)
        if named.missing(result):  # removed behind our back: prepare it again, begin again
            named.check(raw, named.run(connection, raw, "ROLLBACK"))
            named.prepare(raw, name, named.numbered(sql))
            result = named.run(connection, raw, begin)
        named.check(raw, result)
    loader = Transformer(raw)
    loader.set_pgresult(result)
    return loader.load_rows(0, result.ntuples, tuple)
