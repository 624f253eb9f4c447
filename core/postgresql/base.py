"""Django's PostgreSQL backend, with a health check that asks the socket, not the server,
the context ``core.commit_hooks`` puts around a commit's hooks, prepared statements for the hot
queries (``core/postgresql/prepared.py``), psycopg's C loader for ``timestamptz`` and
``jsonb`` values written with orjson (``core/json_codec.py``).

Django registers its own ``timestamptz`` loader, a subclass of psycopg's *Python* one that
replaces the result's tzinfo with Django's; every timestamp a query returns is then parsed in
Python (about a tenth of the match lock's client CPU, most of a long list's row loading). When
Django's time zone and the session's are UTC (``USE_TZ``, ``TIME_ZONE = "UTC"``: this
project's), psycopg's C loader returns exactly what Django's does, ``datetime.timezone.utc``
included, so the connection uses it (``tests/core/test_postgresql_backend.py`` compares them).

With ``CONN_HEALTH_CHECKS`` on, Django checks a kept connection before a request's first
query with ``SELECT 1``: one round trip on every request, for a failure that is rare. How a
kept connection dies in practice (a server restart or shutdown, ``pg_terminate_backend``, a
pooler or proxy closing it, a failover): the server sends a FATAL notice and closes the
socket, so an idle connection's socket becomes readable. Nothing else arrives on an idle
connection unasked in this project (no LISTEN). So: a socket with nothing to read is usable;
a socket with something to read (or an error) gets Django's ``SELECT 1``, which then decides.

A peer that vanished without closing (a host lost, a cable cut) is not detected by either
check without a timeout; the request then fails on its first query as it would have on the
``SELECT 1``. tests/faults/test_postgres_restart.py restarts a real server under play.
"""

from __future__ import annotations

import select
from typing import Any

from django.conf import settings
from django.db.backends.postgresql.base import TIMESTAMPTZ_OID
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper
from django.db.backends.postgresql.operations import DatabaseOperations as PostgresOperations
from psycopg import pq
from psycopg.pq import Format
from psycopg.types.datetime import TimestamptzLoader
from psycopg.types.json import Jsonb

from core import json_codec
from core.commit_hooks import commit_hooks_context
from core.postgresql.named import rollback_coming
from core.postgresql.prepared import PreparingCursor


class DatabaseOperations(PostgresOperations):
    def adapt_json_value(self, value: Any, encoder: Any) -> Any:
        # A JSONField with its own encoder keeps Django's json.dumps(cls=encoder).
        if encoder is None:
            return Jsonb(value, dumps=json_codec.dumps)
        return super().adapt_json_value(value, encoder)


class DatabaseWrapper(PostgresDatabaseWrapper):
    ops_class = DatabaseOperations

    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        if params.pop("prepared_statements", False):  # an option of ours, not libpq's
            # core/postgresql/prepared.py: psycopg prepares what the cursor says, and only
            # that (the threshold is never reached by itself).
            params["cursor_factory"] = PreparingCursor
            params["prepare_threshold"] = 2**31 - 1
        return params

    def is_usable(self) -> bool:
        raw = self.connection
        if raw is None or raw.closed:
            return False
        pgconn = raw.pgconn
        if pgconn.status != pq.ConnStatus.OK:
            return False
        if pgconn.transaction_status != pq.TransactionStatus.IDLE:
            return bool(super().is_usable())
        try:
            readable, _, failed = select.select([pgconn.socket], [], [pgconn.socket], 0)
        except (OSError, ValueError):
            return False
        if readable or failed:
            return bool(super().is_usable())  # something arrived unasked: let the server say
        return True

    # psycopg answers a rollback (and a rollback to a savepoint) with ``DEALLOCATE ALL`` when it
    # has prepared statements: the statements of core/postgresql/named.py may be gone with them.
    # Django's public entry points, through which ``atomic`` rolls back.
    def rollback(self) -> None:
        if self.connection is not None:
            rollback_coming(self.connection)
        super().rollback()

    def savepoint_rollback(self, sid: str) -> None:
        if self.connection is not None:
            rollback_coming(self.connection)
        super().savepoint_rollback(sid)

    def run_and_clear_commit_hooks(self) -> None:
        # Only after a real commit (Django runs none after a rollback): core/commit_hooks.py.
        if not self.run_on_commit:
            return super().run_and_clear_commit_hooks()
        with commit_hooks_context():
            super().run_and_clear_commit_hooks()

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        if _C_LOADERS and settings.USE_TZ and self.timezone_name == "UTC":
            # psycopg registers its C version of its own loader class (its adapters' rule).
            connection.adapters.register_loader("timestamptz", TimestamptzLoader)
        return connection

    def create_cursor(self, name: str | None = None) -> Any:
        # Django's compares the connection's timestamptz loader's ``timezone`` with its own and
        # registers one per cursor when they differ; the C loader has no such attribute, and is
        # only installed when both are UTC (above), so there is nothing to compare.
        raw = self.connection
        if hasattr(raw.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT), "timezone"):
            return super().create_cursor(name)  # Django's loader
        if name:
            return raw.cursor(name, scrollable=False, withhold=raw.autocommit)
        return raw.cursor()


#: psycopg's C implementation is installed (psycopg[binary] or psycopg[c]): registering one
#: of psycopg's own loader classes then registers its C version. Without it Django's loader stays.
_C_LOADERS = pq.__impl__ in ("binary", "c")
