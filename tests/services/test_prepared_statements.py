"""The unit of work's two statements are prepared, and nothing else is prepared by itself
(core/postgresql/own.py; config/settings.py sets psycopg's ``prepare_threshold`` out of reach).

Measured earlier: a move's PostgreSQL CPU 2.2-2.4 → 1.3-1.5 ms prepared; and a generic plan
made the match list of a player with 20,000 matches 25 times slower, which is why nothing is
prepared unless asked (docs/benchmarks.md).
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from tests.players import make_player, start_match

pytestmark = pytest.mark.django_db(transaction=True)


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [" ".join(row[0].split()) for row in cursor.fetchall()]


def test_the_lock_and_the_write_are_prepared_and_the_lists_are_not() -> None:
    assert settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"] == 2**31 - 1
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob])
    for step in (1, 2, 3):
        for player in (alice, bob):
            assert player.move(match_id, step, {"card": step}).status_code == 202
        assert alice.get(f"/matches/{match_id}").status_code == 200
        assert alice.get("/matches?mine=true&status=active").status_code == 200

    texts = _prepared()
    assert any("FOR UPDATE" in sql and "games_seat" in sql for sql in texts), texts  # the lock
    assert any(sql.startswith("WITH write_0 AS (INSERT") for sql in texts), texts  # the write
    # Nothing else: the lists and reads ran three times each, unprepared.
    # ... and the web's timeouts sent with the BEGIN (core/postgresql/session.py)
    timeouts = "SELECT set_config('statement_timeout', $1, true)"
    assert all("FOR UPDATE" in sql or sql.startswith(("WITH write_", timeouts)) for sql in texts), (
        texts
    )
    assert not any(match_id in sql for sql in texts)  # parameters bound, never in a text
