"""Kept connections checked before a request by asking the socket, not the server.

Django's ``CONN_HEALTH_CHECKS`` sends ``SELECT 1`` before a request's first query on a kept
connection: one round trip on every request, for a failure that is rare. How a kept
connection dies in practice (a server restart or shutdown, ``pg_terminate_backend``, a pooler
or proxy closing it, a failover): the server sends a FATAL notice and closes the socket, so an
idle connection's socket becomes readable. Nothing else arrives on an idle connection unasked
in this project (no LISTEN). So, at Django's documented ``request_started`` signal (and
Celery's ``task_prerun``): a
connection whose socket has something to read (or an error), or that psycopg reports broken,
is closed (``connection.close()``), and Django opens a new one for the request's first query.

Only psycopg's documented connection API is read (``closed``, ``broken``, ``fileno()``,
``info.transaction_status``). A peer that vanished without closing (a host lost) is seen by
neither check without a timeout: the request fails on its first query, as it would on the
``SELECT 1``. tests/faults/test_postgres_restart.py restarts a real server under play.
"""

from __future__ import annotations

import select
from typing import Any

from django.conf import settings
from django.core.signals import request_started
from django.db import connections
from psycopg import pq


def _dead(raw: Any) -> bool:
    if raw.closed or raw.broken:
        return True
    if raw.info.transaction_status != pq.TransactionStatus.IDLE:
        return False  # Django's own end of request deals with a connection left in use
    try:
        readable, _, failed = select.select([raw.fileno()], [], [raw.fileno()], 0)
    except (OSError, ValueError):
        return True
    return bool(readable or failed)


def kept_connections_check(**_: Any) -> None:
    """Close every kept PostgreSQL connection of this thread that died while idle."""
    for connection in connections.all(initialized_only=True):
        raw = connection.connection
        if connection.vendor == "postgresql" and raw is not None and _dead(raw):
            connection.close()


def connect() -> None:
    """Check before every request and every Celery task (``FACEDOWN_DB_SOCKET_CHECKS``,
    docs/deployment.md)."""
    if settings.FACEDOWN_DB_SOCKET_CHECKS:
        from celery.signals import task_prerun

        request_started.connect(kept_connections_check, dispatch_uid="core.postgresql.health")
        task_prerun.connect(kept_connections_check, dispatch_uid="core.postgresql.health")
