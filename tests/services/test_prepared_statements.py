"""Prepared statements for the hot point queries, and only for them (core/postgresql/prepared.py).

Measured: a move's PostgreSQL CPU 2.2-2.4 → 1.3-1.5 ms, a read's 0.85-0.95 → 0.25 ms; and a
generic plan made the match list of a player with 20,000 matches 25 times slower, which is why the
list is never prepared (docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from core.postgresql.base import DatabaseWrapper
from core.postgresql.prepared import PreparingCursor, prepare_statement, prepared
from games import match_store
from tests.players import make_player, start_match
from tests.roundtrips import count_round_trips

pytestmark = pytest.mark.django_db(transaction=True)


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [" ".join(row[0].split()) for row in cursor.fetchall()]


def test_the_setting_chooses_the_cursor() -> None:
    assert settings.DATABASES["default"]["OPTIONS"]["prepared_statements"] is True
    connection.ensure_connection()
    assert isinstance(connection.connection.cursor(), PreparingCursor)

    off = dict(settings.DATABASES["default"])
    off["OPTIONS"] = {**off["OPTIONS"], "prepared_statements": False}
    params = DatabaseWrapper(off, alias="prepared-off").get_connection_params()
    assert params["prepare_threshold"] is None  # Django's default: nothing is prepared
    assert params["cursor_factory"] is not PreparingCursor
    assert "prepared_statements" not in params  # not a libpq parameter


def test_the_hot_statements_are_prepared_and_the_list_is_not() -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob])
    for step in (1, 2, 3):
        for player in (alice, bob):
            assert player.move(match_id, step, {"card": step}).status_code == 202
        assert alice.get(f"/matches/{match_id}").status_code == 200
        assert alice.get(f"/matches/{match_id}/events?after=0").status_code == 200
        assert alice.get("/matches").status_code == 200
        assert alice.get("/matches?mine=true&status=active").status_code == 200

    texts = _prepared()
    assert any("FOR UPDATE" in sql and "games_seat" in sql for sql in texts), texts  # the lock
    assert any(sql.startswith("WITH write_0 AS (INSERT") for sql in texts), texts  # the write
    assert any('"private" ->' in sql for sql in texts), texts  # the events page
    assert any('"state", "version", "submitted_mask"' in sql for sql in texts), texts
    # Nothing else was prepared: the lists ran five times each, and their plans depend on
    # the player (a generic plan is made without the values).
    by_key = (
        "WITH write_",
        'WHERE s."match_id" = $1',
        'FROM "games_matchevent" WHERE "match_id" = $2',
        'FROM "games_match" WHERE "id" = $1',
        "FROM games_move WHERE match_id = $1",
    )
    assert all(any(mark in sql for mark in by_key) for sql in texts), texts
    # Parameters are bound, never written into a prepared text.
    assert not any(match_id in sql for sql in texts)
    # The registry knows the lock's text exactly as it runs.
    assert prepared(match_store._LOCK_SQL)


def test_a_statement_is_prepared_once_per_connection(settings: Any) -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob])
    preparations = []
    for step in range(1, 7):
        with count_round_trips() as trips:
            assert alice.move(match_id, step, {"card": step}).status_code == 202
            assert bob.move(match_id, step, {"card": step}).status_code == 202
            assert alice.get(f"/matches/{match_id}").status_code == 200
        preparations.append(len(trips.preparations))
    # The first steps prepare the statements (each on its first run); later ones only bind.
    assert sum(preparations[:3]) > 0
    assert preparations[3:] == [0, 0, 0], preparations


def test_a_registered_text_of_any_size_is_prepared_once_and_nothing_else_is() -> None:
    """A registered text is prepared by psycopg on its first run, whatever its number of
    parameters (a match's creation writes more than 50); an unregistered one never is."""
    values = list(range(60))
    sql = prepare_statement(
        "SELECT " + " + ".join(["%s::int"] * len(values)) + " AS total -- prepared once"
    )
    other = "SELECT " + " + ".join(["%s::int"] * len(values)) + " AS total -- not prepared"
    for _ in range(3):
        with connection.cursor() as cursor:
            cursor.execute(sql, values)
            assert cursor.fetchone() == (sum(values),)
            cursor.execute(other, values)
            assert cursor.fetchone() == (sum(values),)
    texts = _prepared()
    assert sum("-- prepared once" in text for text in texts) == 1, texts
    assert not any("-- not prepared" in text for text in texts), texts


def test_the_statements_reach_psycopg_through_its_public_api_only() -> None:
    """The backend, preparing, the BEGIN sent with the lock and the write sent with the COMMIT
    go through psycopg's and Django's documented API (``execute(…, prepare=True)``,
    ``psycopg.pq``): no module ``psycopg._…`` (its private query conversion, its C module), no
    ``psycopg.generators``, no underscore attribute (``super()._commit()``, ``raw._pipeline``),
    read directly or by ``getattr``."""
    import ast
    from pathlib import Path

    found = []
    for name in ("base.py", "prepared.py", "named.py", "begin.py", "commit.py", "wire.py"):
        tree = ast.parse((Path("core/postgresql") / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                modules = []
            found += [
                f"{name}: {module}"
                for module in modules
                if module.split(".")[0] in ("psycopg", "psycopg_binary", "psycopg_c")
                and any(p.startswith("_") or p == "generators" for p in module.split(".")[1:])
            ]
            dunder = node.attr.endswith("__") if isinstance(node, ast.Attribute) else False
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not dunder:
                found.append(f"{name}:{node.lineno}: .{node.attr}")
            if (
                isinstance(node, ast.Constant)
                and str(node.value).startswith("_")
                and node.value != "_"
            ):
                found.append(f"{name}:{node.lineno}: {node.value!r}")
    assert found == []
