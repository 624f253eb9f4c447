"""Make the web's or the worker's PostgreSQL timeouts a database role's defaults
(docs/deployment.md, "Database roles and timeouts").

    python manage.py database_role_timeouts web                  # the role DATABASE_URL names
    python manage.py database_role_timeouts worker --role facedown_worker

``ALTER ROLE … SET statement_timeout …, lock_timeout …`` from ``FACEDOWN_WEB_*`` or
``FACEDOWN_WORKER_*``: every new session of the role starts with them, through a
transaction-mode pooler too (it logs in as that role), where a startup option is refused and a
session's ``SET`` would pass on to other clients. A role may set its own defaults; another
role's need a superuser or ``CREATEROLE``. Run it again after changing the settings.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import connection
from psycopg import sql

from core.postgresql import session


class Command(BaseCommand):
    help = "Set a database role's statement and lock timeouts to the web's or the worker's."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("kind", choices=["web", "worker"])
        parser.add_argument("--role", help="the role to alter (default: the one connected as)")

    def handle(self, *args: Any, kind: session.Kind, role: str | None, **options: Any) -> None:
        who = sql.Identifier(role) if role else sql.SQL("CURRENT_USER")
        connection.ensure_connection()
        with connection.cursor() as cursor:
            for name, value in session.role_defaults(kind):
                statement = sql.SQL("ALTER ROLE {} SET {} = {}").format(
                    who, sql.Identifier(name), sql.Literal(int(value))
                )
                cursor.execute(statement.as_string(connection.connection))
                self.stdout.write(f"{role or 'CURRENT_USER'}: {name} = {value} ms")
