"""Prepared statements for the hot point queries only.

PostgreSQL spends most of a short statement's server CPU parsing and planning it; a prepared
statement skips both (measured: a move's PostgreSQL CPU 2.2-2.4 → 1.3-1.5 ms, a match read's
0.85-0.95 → 0.25 ms, docs/benchmarks.md). But after five executions PostgreSQL may switch a
prepared statement to a *generic* plan, made without the parameters' values: for a query
whose best plan depends on them it is much worse (the match list of a player with 20,000
matches: 6.6 → 165 ms). So preparing is opt-in, per SQL text: the statements that look rows up
by key (the match lock, the snapshot, the engine state, the step's sealed moves, the events
page, the unit of work's write) register their text with ``prepare_statement``; psycopg
prepares those on first use, once per connection, and never prepares anything else.

``DB_PREPARED_STATEMENTS=0`` turns it off (a transaction-mode pooler, docs/deployment.md).

The same texts are also *converted* once per process: psycopg turns every statement's ``%s``
into ``$1``, ``$2``, … by scanning its text in Python, and remembers the result only for texts
of at most 4096 bytes and 50 parameters (its guard against an ORM's endless ``VALUES``
lists). A unit of work's write that creates or starts a match has more parameters than that,
so psycopg scanned it on every request (≈ 0.2 ms, a twentieth of a creation's CPU). A
registered text is a fixed shape, so ``RegisteredQuery`` keeps its conversion, whatever its
size, in a bounded cache of its own (with prepared statements on: the cursor of this module and
the write sent with the ``COMMIT``, core/postgresql/commit.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from psycopg._queries import PostgresQuery, _query2pg_nocache

if TYPE_CHECKING:
    from psycopg import Cursor as ServerBindingCursor
else:  # Django's psycopg cursor with server-side binding (and its ``callproc``)
    from django.db.backends.postgresql.base import ServerBindingCursor

#: The SQL texts to prepare. Only ever grows, bounded by the statements' shapes (a write's
#: text depends on which tables and how many rows it touches).
_PREPARED: set[str] = set()


def prepare_statement(sql: str) -> str:
    """Mark ``sql`` to be prepared wherever it runs on PostgreSQL; returns it."""
    _PREPARED.add(sql)
    return sql


def prepared(sql: str) -> bool:
    return sql in _PREPARED


@lru_cache(maxsize=512)
def _converted(query: str, encoding: str) -> Any:
    """psycopg's own conversion, kept for the registered texts (module docstring). The size
    bounds the memory should the shapes ever outgrow it: a text pushed out is scanned again."""
    return _query2pg_nocache(query.encode(encoding), encoding)


class RegisteredQuery(PostgresQuery):
    """psycopg's query, converting a registered text once per process (module docstring)."""

    __slots__ = ()

    def convert(self, query: Any, vars: Any) -> None:
        if vars is None or type(query) is not str or query not in _PREPARED:
            return super().convert(query, vars)
        self.query, self._want_formats, self._order, self._parts = _converted(
            query, self._tx.encoding
        )
        self.dump(vars)


class PreparingCursor(ServerBindingCursor):
    """Django's server-binding cursor, preparing exactly the registered statements."""

    _query_cls = RegisteredQuery

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, **kwargs: Any
    ) -> Any:
        if prepare is None:
            prepare = isinstance(query, str) and query in _PREPARED
        return super().execute(query, params, prepare=prepare, **kwargs)
