"""Count real database round trips at the libpq protocol level.

Django's ``CaptureQueriesContext`` misses the ``BEGIN`` and ``COMMIT`` that psycopg 3 sends by
itself, so this traces the libpq connection instead: every frontend message after which the
client waits for the server — a simple-protocol ``Query`` or an extended-protocol ``Sync`` —
is one round trip.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import connection
from psycopg import pq

_WAITING = re.compile(r"^F\t\d+\t(Query|Sync)\b(.*)$")
# The SQL may hold double quotes (quoted names): it ends at the last quote before the count of
# parameter types.
_PARSE = re.compile(r'^F\t\d+\tParse\t "([^"]*)" "(.*)" \d+')
_BIND = re.compile(r'^F\t\d+\tBind\t "[^"]*" "([^"]*)"')


@dataclass
class RoundTrips:
    trace: str = ""
    #: One entry per round trip: the SQL text of its ``Query``, or of the statement its ``Sync``
    #: completes.
    messages: list[str] = field(default_factory=list)
    #: Round trips that only prepared a statement (``Parse "_pg3_N"``, ``Describe``, ``Sync``):
    #: psycopg prepares a statement the second time a connection runs it
    #: (``DB_PREPARE_THRESHOLD``), once per connection, and then executes it without the text.
    #: Not in ``count``: a request's steady-state cost is what the budgets are about.
    preparations: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.messages)

    def __str__(self) -> str:
        return f"{self.count} round trips:\n  " + "\n  ".join(self.messages)


@contextmanager
def count_round_trips() -> Iterator[RoundTrips]:
    """Trace the default connection of this thread; it must stay the same connection throughout."""
    connection.ensure_connection()
    raw = connection.connection
    pgconn = raw.pgconn
    result = RoundTrips()
    # Statements this connection prepared before the trace starts, by name (not traced).
    with raw.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        known: dict[str, str] = dict(cursor.fetchall())
    fd, path = tempfile.mkstemp(prefix="libpq-trace-")
    try:
        pgconn.trace(fd)
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield result
        finally:
            pgconn.untrace()  # flushes libpq's stream
        assert connection.connection is raw, "the traced connection was replaced mid-count"
        with open(path, encoding="utf-8", errors="replace") as trace:
            result.trace = trace.read()
    finally:
        os.close(fd)
        os.unlink(path)
    # An extended-protocol round trip is named by the SQL of its Parse; a statement psycopg has
    # prepared earlier is named by the SQL it was prepared with (Parse "name" "sql" …).
    prepared = {name: " ".join(sql.split()) for name, sql in known.items()}
    pending = ""
    preparing = False
    for line in result.trace.splitlines():
        parsed = _PARSE.match(line)
        if parsed:
            name, sql = parsed.groups()
            prepared[name] = sql
            pending = sql
            preparing = bool(name)
            continue
        bound = _BIND.match(line)
        if bound:
            preparing = False
            if not pending:
                pending = prepared.get(bound.group(1), "<prepared>")
            continue
        found = _WAITING.match(line)
        if found:
            kind, rest = found.groups()
            text = (rest.strip() if kind == "Query" else pending)[:160]
            (result.preparations if preparing else result.messages).append(text)
            pending = ""
            preparing = False
