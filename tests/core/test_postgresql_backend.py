"""The PostgreSQL backend's ``timestamptz`` loader (core/postgresql/base.py): psycopg's C
loader, giving exactly what Django's own Python loader gives."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from psycopg.adapt import Transformer
from psycopg.types import TypeInfo
from psycopg.types.datetime import TimestamptzLoader

pytestmark = pytest.mark.django_db

VALUES = [
    "2026-11-23 03:10:11.123456+00",
    "2026-11-23 03:10:11+00",
    "1999-12-31 23:59:59.999999+00",
    "2000-02-29 00:00:00.000001+00",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
]


def test_the_connection_loads_timestamps_with_the_c_loader() -> None:
    connection.ensure_connection()
    oid = TypeInfo.fetch(connection.connection, "timestamptz").oid  # type: ignore[union-attr]
    loader = connection.connection.adapters.get_loader(oid, 0)
    assert loader.__name__ == "TimestamptzLoader" and loader is not TimestamptzLoader  # C
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('TimeZone')")
        assert cursor.fetchone()[0] == "UTC"


def test_it_loads_what_djangos_loader_loads() -> None:
    connection.ensure_connection()
    raw = connection.connection
    django_loader = type("DjangoUtc", (BaseTzLoader,), {"timezone": datetime.UTC})
    oid = TypeInfo.fetch(raw, "timestamptz").oid  # type: ignore[union-attr]
    ours = raw.adapters.get_loader(oid, 0)(oid, Transformer(raw))
    theirs = django_loader(oid, Transformer(raw))
    for text in VALUES:
        got, expected = ours.load(text.encode()), theirs.load(text.encode())
        assert got == expected and got.tzinfo is expected.tzinfo is datetime.UTC, text
        assert got.isoformat() == expected.isoformat()
    with connection.cursor() as cursor:  # and through a real query
        cursor.execute("SELECT %s::timestamptz, now()", [VALUES[0]])
        at, now = cursor.fetchone()
    assert at == datetime.datetime(2026, 11, 23, 3, 10, 11, 123456, tzinfo=datetime.UTC)
    assert at.tzinfo is now.tzinfo is datetime.UTC
