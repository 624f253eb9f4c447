"""A transaction's ``BEGIN`` sent together with its first query: one round trip, not two.

psycopg opens a transaction by sending ``BEGIN`` alone and waiting for the answer before it
sends the first query. On a move that is one of four round trips to PostgreSQL, and each costs
the web process a send, a wake-up and a receive (the largest single cost of a move in the live
profile, docs/benchmarks.md). So the unit of work's first statement, the match lock, is sent as
one simple-protocol message, ``BEGIN; EXECUTE name('…')``, with the lock as a prepared
statement of its own (prepared once per connection, one more round trip then), so the server
still neither parses nor plans it again.

Only for a statement whose parameters are UUIDs or integers (their literals are their text,
nothing to escape) and only when the connection is about to open a transaction: inside
``transaction.atomic`` before its first query, prepared statements on (a transaction-mode
pooler keeps per-connection statements from working: ``DB_PREPARED_STATEMENTS=0`` turns this
off too), and no execute wrapper installed (every wrapper must see every query). Otherwise the
caller runs the statement as usual.

psycopg forgets its prepared statements with ``DEALLOCATE ALL`` after a rollback, which removes
this one too: the backend tells this module then (``forget_prepared``), which prepares it again
under a new name when next needed. Should anything else have removed it, the server's "does not
exist" is answered by a rollback of the transaction just begun, the statement prepared again
and ``BEGIN; EXECUTE …`` sent again.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
import weakref
from collections.abc import Sequence
from typing import Any

from psycopg import errors, generators, pq
from psycopg.adapt import Transformer

#: SQLSTATE invalid_sql_statement_name: ``EXECUTE`` of a statement this session lacks.
_NOT_PREPARED = "26000"
_PLACEHOLDER = re.compile(r"%(%|s)")
_texts: dict[str, tuple[str, str]] = {}


class _Prepared:
    """What one psycopg connection has prepared. After a rollback the statements may or may
    not be gone (psycopg deallocates only when it had prepared statements of its own), so the
    next ones take new names: never a "does not exist", never an "already exists"."""

    def __init__(self) -> None:
        self.generation = 0
        self.names: set[str] = set()


_connections: weakref.WeakKeyDictionary[Any, _Prepared] = weakref.WeakKeyDictionary()


def forget_prepared(raw: Any) -> None:
    """The connection ``raw`` may have lost its prepared statements (a rollback)."""
    prepared = _connections.get(raw)
    if prepared is not None and prepared.names:
        prepared.generation += 1
        prepared.names.clear()


def _statement(sql: str) -> tuple[str, str]:
    """The statement's name and its text to prepare (Django's ``%s`` become ``$1``, ``$2`` …)."""
    found = _texts.get(sql)
    if found is None:
        count = 0

        def number(placeholder: re.Match[str]) -> str:
            nonlocal count
            if placeholder.group(1) == "%":
                return "%"
            count += 1
            return f"${count}"

        name = "facedown_" + hashlib.sha1(sql.encode()).hexdigest()[:16]
        found = _texts[sql] = (name, _PLACEHOLDER.sub(number, sql))
    return found


def _literal(value: Any) -> str | None:
    if isinstance(value, uuid.UUID):
        return f"'{value}'"
    if type(value) is int:
        return str(value)
    return None


def _opening(connection: Any) -> Any:
    """The psycopg connection if ``connection`` is about to open its transaction, else None."""
    if (
        connection.vendor != "postgresql"
        or not connection.in_atomic_block
        or connection.execute_wrappers
        or not connection.settings_dict.get("OPTIONS", {}).get("prepared_statements")
    ):
        return None
    connection.validate_no_broken_transaction()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw = connection.connection
    if raw.autocommit or raw.pgconn.transaction_status != pq.TransactionStatus.IDLE:
        return None
    if getattr(raw, "_pipeline", None) is not None:
        return None
    return raw


def rows_beginning(
    connection: Any, sql: str, params: Sequence[Any]
) -> list[tuple[Any, ...]] | None:
    """The rows of ``sql`` run as the transaction's first statement, ``BEGIN`` in the same
    round trip; None when this connection cannot (module docstring): run it as usual then."""
    literals = [_literal(value) for value in params]
    if None in literals:
        return None
    raw = _opening(connection)
    if raw is None:
        return None
    base, prepared_sql = _statement(sql)
    prepared = _connections.get(raw)
    if prepared is None:
        prepared = _connections[raw] = _Prepared()
    name = f"{base}_{prepared.generation}"
    begin = f"BEGIN; EXECUTE {name}({', '.join(literals)})"  # type: ignore[arg-type]
    started = time.monotonic()
    with connection.wrap_database_errors:
        if name not in prepared.names:
            _prepare(raw, name, prepared_sql)
            prepared.names.add(name)
        result = _run(raw, begin)
        if _missing(result):  # removed behind our back: prepare it again, in a new transaction
            _check(raw, _run(raw, "ROLLBACK"))
            _prepare(raw, name, prepared_sql)
            result = _run(raw, begin)
        _check(raw, result)
    if connection.queries_logged:
        duration = time.monotonic() - started
        connection.queries_log.append({"sql": begin, "time": f"{duration:.3f}"})
    loader = Transformer(raw)
    loader.set_pgresult(result)
    return loader.load_rows(0, result.ntuples, tuple)


def _prepare(raw: Any, name: str, sql: str) -> None:
    """Prepare ``sql`` as ``name`` (protocol level, types inferred): one round trip."""
    with raw.lock:
        raw.pgconn.send_prepare(name.encode(), sql.encode())
        (result,) = raw.wait(generators.execute(raw.pgconn))
    _check(raw, result)


def _run(raw: Any, text: str) -> Any:
    """Send ``text`` (several statements, simple protocol) and return its last result."""
    with raw.lock:
        raw.pgconn.send_query(text.encode())
        results = raw.wait(generators.execute(raw.pgconn))
    return results[-1]


def _check(raw: Any, result: Any) -> None:
    if result.status == pq.ExecStatus.FATAL_ERROR:
        raise errors.error_from_result(result, encoding=raw.info.encoding)


def _missing(result: Any) -> bool:
    return bool(
        result.status == pq.ExecStatus.FATAL_ERROR
        and result.error_field(pq.DiagnosticField.SQLSTATE) == _NOT_PREPARED.encode()
    )
