"""A transaction's BEGIN sent with its first query (core/postgresql/begin.py), on the real
PostgreSQL: the same rows as the cursor gives, one round trip, a real lock, and the prepared
statement surviving (or recovering from) psycopg's ``DEALLOCATE ALL``."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext

from core.postgresql.begin import rows_beginning
from games.models import Match
from tests.players import make_player, start_match
from tests.roundtrips import count_round_trips

pytestmark = pytest.mark.django_db(transaction=True)

LOCK = 'SELECT "id", "status", "step" FROM "games_match" WHERE "id" = %s FOR UPDATE'


@pytest.fixture
def match_id() -> uuid.UUID:
    return uuid.UUID(start_match("gops", [make_player(), make_player()]))


def _expected(match_id: uuid.UUID) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(LOCK.replace(" FOR UPDATE", ""), [match_id])
        return list(cursor.fetchall())


def _prepared_here() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements")
        return {name for (name,) in cursor.fetchall()}


def _locked_elsewhere(match_id: uuid.UUID) -> bool:
    """Whether another session finds the match row locked."""
    with psycopg.connect(_dsn(), autocommit=True) as other:
        try:
            other.execute(LOCK.replace("FOR UPDATE", "FOR UPDATE NOWAIT"), [match_id])
        except psycopg.errors.LockNotAvailable:
            return True
    return False


def _dsn() -> str:
    s = connection.settings_dict
    return f"host={s['HOST']} port={s['PORT'] or 5432} user={s['USER']} dbname={s['NAME']}"


def test_the_rows_are_the_cursors_and_begin_travels_with_them(match_id: uuid.UUID) -> None:
    expected = _expected(match_id)
    with count_round_trips() as trips, transaction.atomic():
        rows = rows_beginning(connection, LOCK, [match_id])
        assert rows == expected
        assert type(rows[0]) is tuple and isinstance(rows[0][0], uuid.UUID)
        assert _locked_elsewhere(match_id)  # the row is locked, inside a real transaction
    assert not _locked_elsewhere(match_id)  # and released by the commit
    assert trips.preparations and trips.preparations[0].startswith('SELECT "id"'), trips
    assert trips.messages[0].startswith('"BEGIN; EXECUTE facedown_'), trips
    assert trips.messages[1:] == ['"COMMIT"'], trips  # no BEGIN of psycopg's own
    with count_round_trips() as trips, transaction.atomic():  # prepared now: nothing more
        assert rows_beginning(connection, LOCK, [match_id]) == expected
    assert trips.messages[0].startswith('"BEGIN; EXECUTE facedown_'), trips
    assert trips.count == 2 and not trips.preparations


def test_a_rollback_forgets_the_statement_and_the_next_prepares_it_again(
    match_id: uuid.UUID,
) -> None:
    with transaction.atomic():
        rows_beginning(connection, LOCK, [match_id])
    with connection.cursor() as cursor:  # psycopg prepares something of its own …
        for _ in range(2):
            cursor.cursor.execute("SELECT 1 FROM games_match LIMIT 1", prepare=True)
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        rows_beginning(connection, LOCK, [match_id])
        raise ZeroDivisionError  # … so the rollback ends with DEALLOCATE ALL
    assert not any(name.startswith("facedown_") for name in _prepared_here())
    expected = _expected(match_id)
    with count_round_trips() as trips, transaction.atomic():
        assert rows_beginning(connection, LOCK, [match_id]) == expected
    assert len(trips.preparations) == 1, trips  # prepared again first: no error, no retry
    assert trips.messages[0].startswith('"BEGIN; EXECUTE facedown_'), trips
    assert trips.count == 2, trips


def test_a_rollback_that_deallocated_nothing_leaves_no_clash(match_id: uuid.UUID) -> None:
    connection.close()  # a new connection: psycopg has prepared nothing of its own
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        rows_beginning(connection, LOCK, [match_id])
        raise ZeroDivisionError  # a rollback with nothing for psycopg to deallocate
    assert any(name.startswith("facedown_") for name in _prepared_here())  # still there
    expected = _expected(match_id)
    with count_round_trips() as trips, transaction.atomic():
        assert rows_beginning(connection, LOCK, [match_id]) == expected  # no "already exists"
    assert trips.messages[0].startswith('"BEGIN; EXECUTE facedown_'), trips


def test_a_statement_removed_behind_its_back_is_prepared_again(match_id: uuid.UUID) -> None:
    with transaction.atomic():
        rows_beginning(connection, LOCK, [match_id])
    with connection.cursor() as cursor:  # not through psycopg's rollback: nobody is told
        cursor.connection.pgconn.exec_(b"DEALLOCATE ALL")
    expected = _expected(match_id)
    with count_round_trips() as trips, transaction.atomic():
        assert rows_beginning(connection, LOCK, [match_id]) == expected
        assert _locked_elsewhere(match_id)
    assert trips.messages[0].startswith('"BEGIN; EXECUTE'), trips  # "does not exist"
    assert trips.messages[1] == '"ROLLBACK"', trips
    assert len(trips.preparations) == 1, trips
    assert trips.messages[2].startswith('"BEGIN; EXECUTE'), trips
    assert trips.messages[3:] == ['"COMMIT"'], trips


def test_it_declines_where_it_cannot_open_the_transaction(
    match_id: uuid.UUID, settings: Any
) -> None:
    assert rows_beginning(connection, LOCK, [match_id]) is None  # autocommit: no transaction
    with transaction.atomic():
        Match.objects.filter(pk=match_id).exists()  # the transaction has begun
        assert rows_beginning(connection, LOCK, [match_id]) is None
    with transaction.atomic():
        assert rows_beginning(connection, LOCK, [str(match_id)]) is None  # no plain literal
    with transaction.atomic(), connection.execute_wrapper(lambda *a: a[0](*a[1:4])):
        assert rows_beginning(connection, LOCK, [match_id]) is None  # wrappers see all queries
    options = connection.settings_dict["OPTIONS"]
    saved = options.get("prepared_statements")
    options["prepared_statements"] = False  # DB_PREPARED_STATEMENTS=0 (a pooler)
    try:
        with transaction.atomic():
            assert rows_beginning(connection, LOCK, [match_id]) is None
    finally:
        options["prepared_statements"] = saved


def test_it_is_logged_with_the_queries(match_id: uuid.UUID) -> None:
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        rows_beginning(connection, LOCK, [match_id])
    (ours,) = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("BEGIN; ")]
    assert "EXECUTE facedown_" in ours and f"'{match_id}'" in ours


def test_a_failing_first_query_raises_djangos_error_and_rolls_back(match_id: uuid.UUID) -> None:
    holder = psycopg.connect(_dsn())
    try:
        holder.execute(LOCK, [match_id])  # another session holds the row
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '50ms'")
        with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
            rows_beginning(connection, LOCK, [match_id])
        assert connection.connection.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
    finally:
        holder.close()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    with transaction.atomic():  # the connection goes on working
        assert rows_beginning(connection, LOCK, [match_id]) == _expected(match_id)
