"""Prepared statements for the hot point queries only.

PostgreSQL spends most of a short statement's server CPU parsing and planning it; a prepared
statement skips both (docs/benchmarks.md). But after five executions PostgreSQL may switch a
prepared statement to a *generic* plan, made without the parameters' values: for a query whose
best plan depends on them it is much worse (a long match list). So preparing is opt-in, per SQL
text: the statements that look rows up by key (the match lock, the snapshot, the engine state,
the step's sealed moves, the events page, the unit of work's write) register their text with
``prepare_statement``; the cursor asks psycopg to prepare those (its documented ``execute(…,
prepare=True)``), once per connection, and nothing else (the connection's
``prepare_threshold`` is never reached by itself).

``DB_PREPARED_STATEMENTS=0`` turns it off (a transaction-mode pooler, docs/deployment.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


class PreparingCursor(ServerBindingCursor):
    """Django's server-binding cursor, preparing exactly the registered statements."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, **kwargs: Any
    ) -> Any:
        if prepare is None:
            prepare = isinstance(query, str) and query in _PREPARED
        return super().execute(query, params, prepare=prepare, **kwargs)
