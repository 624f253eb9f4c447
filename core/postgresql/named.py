"""Statements prepared under names of our own, for the messages that save a round trip.

psycopg sends ``BEGIN`` and ``COMMIT`` each as a message of its own and waits for the answer.
``core/postgresql/begin.py`` sends ``BEGIN`` with a transaction's first statement and
``core/postgresql/commit.py`` sends a change's last write with its ``COMMIT``, one round trip
each instead of two. Both run statements prepared once per connection under names of ours (the
server then neither parses nor plans them again), which this module keeps track of.

psycopg forgets its own prepared statements with ``DEALLOCATE ALL`` after a rollback (or a
rollback to a savepoint) once it has prepared any: ours may go with them, and psycopg's
documented API does not say whether it will. So the backend tells this module before every
rollback (``rollback_coming``) and ours are taken as gone: they are prepared again when next
needed, under new names (the connection's generation is part of the name), so a statement
that in fact survived never clashes with its successor. A survivor lingers until psycopg's
next ``DEALLOCATE ALL`` or the connection's end: only a rollback on a connection where psycopg
has prepared nothing yet leaves one.
"""

from __future__ import annotations

import hashlib
import re
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from psycopg import errors, pq

from core.postgresql import wire

#: SQLSTATE invalid_sql_statement_name: ``EXECUTE`` of a statement this session lacks.
NOT_PREPARED = b"26000"
_PLACEHOLDER = re.compile(r"%(%|s)")
_numbered: dict[str, str] = {}
_names: dict[tuple[str, tuple[int, ...]], str] = {}


@dataclass
class _Prepared:
    """What one psycopg connection has prepared under our names (a new one: nothing)."""

    names: set[str] = field(default_factory=set)
    #: How many times its statements were taken as gone (``rollback_coming``).
    generation: int = 0


_prepared: weakref.WeakKeyDictionary[Any, _Prepared] = weakref.WeakKeyDictionary()


def _session(raw: Any) -> _Prepared:
    found = _prepared.get(raw)
    if found is None:
        found = _prepared[raw] = _Prepared()
    return found


def usable(connection: Any) -> Any:
    """The psycopg connection under ``connection`` if the statements of this module may run
    on it now, else None: PostgreSQL, prepared statements on, no execute wrapper."""
    if (
        connection.vendor != "postgresql"
        or connection.execute_wrappers
        or not connection.settings_dict.get("OPTIONS", {}).get("prepared_statements")
    ):
        return None
    connection.validate_no_broken_transaction()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw = connection.connection
    if raw.pgconn.pipeline_status != pq.PipelineStatus.OFF:  # a psycopg pipeline is open
        return None
    return raw


def prepared_names(raw: Any) -> set[str]:
    return _session(raw).names


def rollback_coming(raw: Any) -> None:
    """A rollback is about to run on ``raw``: psycopg may answer it with ``DEALLOCATE ALL``,
    so ours are taken as gone (module docstring)."""
    session = _prepared.get(raw)
    if session is not None and session.names:
        session.names.clear()
        session.generation += 1


def name_of(raw: Any, sql: str, types: tuple[int, ...] = ()) -> str:
    """Our name on ``raw`` for ``sql`` prepared with parameter ``types`` (none: inferred)."""
    name = _names.get((sql, types))
    if name is None:
        digest = hashlib.sha1(repr((sql, types)).encode()).hexdigest()[:16]
        name = _names[(sql, types)] = f"facedown_{digest}"
    generation = _session(raw).generation
    return f"{name}_{generation}" if generation else name


def numbered(sql: str) -> str:
    """``sql`` with Django's ``%s`` placeholders as PostgreSQL's ``$1``, ``$2`` …"""
    found = _numbered.get(sql)
    if found is None:
        count = 0

        def number(placeholder: re.Match[str]) -> str:
            nonlocal count
            if placeholder.group(1) == "%":
                return "%"
            count += 1
            return f"${count}"

        found = _numbered[sql] = _PLACEHOLDER.sub(number, sql)
    return found


def prepare(raw: Any, name: str, sql: str) -> None:
    """Prepare ``sql`` (``$n`` placeholders, types inferred) as ``name``: one round trip."""
    with raw.lock:
        raw.pgconn.send_prepare(name.encode(), sql.encode())
        (result,) = wire.execute(raw.pgconn)
    check(raw, result)
    prepared_names(raw).add(name)


def run(connection: Any, raw: Any, text: str) -> Any:
    """Send ``text`` (several statements, simple protocol); the last result (an error ends
    them). Logged with the connection's queries when it logs them."""
    started = time.monotonic()
    with raw.lock:
        raw.pgconn.send_query(text.encode())
        results = wire.execute(raw.pgconn)
    log(connection, text, started)
    return results[-1]


def log(connection: Any, sql: str, started: float) -> None:
    if connection.queries_logged:
        duration = time.monotonic() - started
        connection.queries_log.append({"sql": sql, "time": f"{duration:.3f}"})


def missing(result: Any) -> bool:
    """Whether ``result`` is the server's "prepared statement does not exist"."""
    return bool(
        result.status == pq.ExecStatus.FATAL_ERROR
        and result.error_field(pq.DiagnosticField.SQLSTATE) == NOT_PREPARED
    )


def check(raw: Any, result: Any) -> None:
    """Raise the server's error, if ``result`` is one, as psycopg would."""
    if result.status == pq.ExecStatus.FATAL_ERROR:
        raise errors.error_from_result(result, encoding=raw.info.encoding)
