"""Django's PostgreSQL backend, with ``jsonb`` values written with orjson
(``core/json_codec.py``). Nothing else of Django's backend is overridden: the match's
transaction is core/postgresql/own.py, the kept connections' check core/postgresql/health.py.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper
from django.db.backends.postgresql.operations import DatabaseOperations as PostgresOperations
from psycopg.types.json import Jsonb

from core import json_codec


class DatabaseOperations(PostgresOperations):
    def adapt_json_value(self, value: Any, encoder: Any) -> Any:
        # A JSONField with its own encoder keeps Django's json.dumps(cls=encoder).
        if encoder is None:
            return Jsonb(value, dumps=json_codec.dumps)
        return super().adapt_json_value(value, encoder)


class DatabaseWrapper(PostgresDatabaseWrapper):
    ops_class = DatabaseOperations
