"""Prepared statements: PostgreSQL parses and plans the hot statements once per connection.

Django turns psycopg's automatic preparing off unless ``OPTIONS["prepare_threshold"]`` says
otherwise; the settings turn it on (``DB_PREPARE_THRESHOLD``, 2 by default). Measured: a move's
PostgreSQL CPU 1.9-2.0 → 1.2 ms, a read's 0.7 → 0.23 ms (docs/benchmarks.md).
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from config.settings import _prepare_threshold
from tests.players import make_player, start_match
from tests.roundtrips import count_round_trips

pytestmark = pytest.mark.django_db(transaction=True)


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_the_threshold_setting() -> None:
    assert _prepare_threshold("2") == 2
    assert _prepare_threshold(" 5 ") == 5
    for off in ("", "off", "OFF", "none"):
        assert _prepare_threshold(off) is None  # for a transaction-mode pooler


def test_the_connection_prepares_what_it_runs_often() -> None:
    assert settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"] == 2
    connection.ensure_connection()
    assert connection.connection.prepare_threshold == 2

    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob])
    for step in (1, 2, 3):
        for player in (alice, bob):
            assert player.move(match_id, step, {"card": step}).status_code == 202
        assert alice.get(f"/matches/{match_id}").status_code == 200

    prepared = _prepared()
    # The match lock (FOR UPDATE over the match and its seats) and the snapshot read, each
    # run once per request above, are prepared statements of this connection now.
    assert any("FOR UPDATE" in sql and "games_seat" in sql for sql in prepared), prepared
    assert any("games_match" in sql and "FOR UPDATE" not in sql for sql in prepared), prepared
    # Their parameters are bound, never written into the text: no move value is in a statement.
    assert not any("'card'" in sql for sql in prepared)


def test_a_statement_is_prepared_once_per_connection() -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob])
    preparations = []
    for step in range(1, 7):
        with count_round_trips() as trips:
            assert alice.move(match_id, step, {"card": step}).status_code == 202
            assert bob.move(match_id, step, {"card": step}).status_code == 202
            assert alice.get(f"/matches/{match_id}").status_code == 200
        preparations.append(len(trips.preparations))
    # The first steps prepare the statements that reach the threshold; later ones only bind.
    assert sum(preparations[:3]) > 0
    assert preparations[3:] == [0, 0, 0], preparations
