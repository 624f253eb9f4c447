"""A change's write sent with its COMMIT (core/postgresql/commit.py), on the real
PostgreSQL: one round trip, Django's commit hooks after it, a failing write committing nothing,
and the unit of work's guard that the match row was updated."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from core.postgresql.commit import write_alone, write_with_commit
from core.postgresql.prepared import prepare_statement
from games.models import Match
from games.services.unit_of_work import match_change
from tests.players import make_player, start_match
from tests.roundtrips import count_round_trips

pytestmark = pytest.mark.django_db(transaction=True)

UPDATE = 'UPDATE "games_match" SET "version" = "version" + %s WHERE "id" = %s'


@pytest.fixture
def match_id() -> uuid.UUID:
    return uuid.UUID(start_match("gops", [make_player(), make_player()]))


def _version(match_id: uuid.UUID) -> int:
    return Match.objects.values_list("version", flat=True).get(pk=match_id)


def test_the_write_leaves_with_the_commit(match_id: uuid.UUID) -> None:
    before = _version(match_id)
    ran: list[str] = []
    with count_round_trips() as trips, transaction.atomic():
        Match.objects.select_for_update().filter(pk=match_id).exists()
        assert write_with_commit(connection, UPDATE, [10, match_id])
        transaction.on_commit(lambda: ran.append("hook"))
    assert _version(match_id) == before + 10 and ran == ["hook"]
    assert [m for m in trips.messages if m != '"BEGIN"'][-1] == "COMMIT", trips
    assert trips.count == 3, trips  # BEGIN, the lock, the write with COMMIT
    with count_round_trips() as trips, transaction.atomic():  # prepared now: no preparation
        Match.objects.select_for_update().filter(pk=match_id).exists()
        assert write_with_commit(connection, UPDATE, [1, match_id])
    assert _version(match_id) == before + 11 and not trips.preparations, trips


def test_a_statement_after_the_write_sees_it_committed(match_id: uuid.UUID) -> None:
    before = _version(match_id)
    with count_round_trips() as trips, transaction.atomic():
        Match.objects.select_for_update().filter(pk=match_id).exists()
        assert write_with_commit(connection, UPDATE, [1, match_id])
        assert _version(match_id) == before + 1  # a new transaction, which the block commits
    assert _version(match_id) == before + 1  # written once
    assert trips.messages.count("COMMIT") + trips.messages.count('"COMMIT"') == 2, trips


def test_a_failing_write_commits_nothing(match_id: uuid.UUID) -> None:
    before = _version(match_id)
    ran: list[str] = []
    bad = 'UPDATE "games_match" SET "version" = %s WHERE "id" = %s'
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(pk=match_id).update(version=before + 5)
        assert write_with_commit(connection, bad, [None, match_id])  # version is NOT NULL
        transaction.on_commit(lambda: ran.append("hook"))
    assert _version(match_id) == before and ran == []  # the earlier update rolled back too
    with transaction.atomic():  # the connection goes on working, the statement too
        Match.objects.filter(pk=match_id).exists()
        assert write_with_commit(connection, UPDATE, [2, match_id])
    assert _version(match_id) == before + 2


def test_it_commits_only_in_the_outermost_block(match_id: uuid.UUID, settings: Any) -> None:
    assert not write_with_commit(connection, UPDATE, [1, match_id])  # autocommit
    with transaction.atomic():
        Match.objects.filter(pk=match_id).exists()
        with transaction.atomic():  # a savepoint could still roll it back
            assert not write_with_commit(connection, UPDATE, [1, match_id])
    with transaction.atomic():
        assert not write_with_commit(
            connection, UPDATE, [1, match_id]
        )  # nothing begun: no transaction
    options = connection.settings_dict["OPTIONS"]
    saved = options.get("prepared_statements")
    options["prepared_statements"] = False
    try:
        with transaction.atomic():
            Match.objects.filter(pk=match_id).exists()
            assert not write_with_commit(connection, UPDATE, [1, match_id])
    finally:
        options["prepared_statements"] = saved


def test_a_rollback_that_deallocates_makes_it_prepare_again(match_id: uuid.UUID) -> None:
    with transaction.atomic():
        Match.objects.filter(pk=match_id).exists()
        write_with_commit(connection, UPDATE, [1, match_id])
    with connection.cursor() as cursor:  # psycopg prepares something of its own …
        for _ in range(2):
            cursor.cursor.execute("SELECT 1 FROM games_match LIMIT 1", prepare=True)
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        Match.objects.filter(pk=match_id).exists()
        raise ZeroDivisionError  # … so the rollback ends with DEALLOCATE ALL
    before = _version(match_id)
    with count_round_trips() as trips, transaction.atomic():
        Match.objects.filter(pk=match_id).exists()
        assert write_with_commit(connection, UPDATE, [1, match_id])
    assert _version(match_id) == before + 1, trips  # prepared again in the same pipeline


def test_the_unit_of_work_refuses_a_write_that_updated_no_match_row(match_id: uuid.UUID) -> None:
    refused = pytest.raises(DatabaseError, match="0 match rows updated, not 1")
    with refused, match_change(match_id) as tx:
        with connection.cursor() as cursor:  # the row goes, inside the same transaction
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            cursor.execute("DELETE FROM games_match WHERE id = %s", [match_id])
        tx.match.status = Match.Status.ABORTED
    assert Match.objects.filter(pk=match_id, status=Match.Status.ACTIVE).exists()


def test_a_move_is_one_pipeline_with_its_commit_in_the_unit_of_work(match_id: uuid.UUID) -> None:
    with count_round_trips() as trips, match_change(match_id) as tx:
        tx.match.version += 0
        tx.match.status = Match.Status.ABORTED
    assert trips.messages[0].startswith('"BEGIN; EXECUTE facedown_'), trips
    assert trips.messages[1:] == ["COMMIT"], trips
    assert Match.objects.get(pk=match_id).status == Match.Status.ABORTED


def test_a_write_of_many_parameters_with_its_commit_is_prepared_once(
    match_id: uuid.UUID,
) -> None:
    """The write sent with the COMMIT is prepared on its first run only, however many
    parameters it has (a match's creation writes more than 50)."""
    adds = " + ".join(["%s"] * 60)
    sql = prepare_statement(
        f'UPDATE "games_match" SET "version" = "version" + {adds} WHERE "id" = %s'
    )
    before = _version(match_id)
    preparations = []
    for _ in range(2):
        with count_round_trips() as trips, transaction.atomic():
            Match.objects.select_for_update().filter(pk=match_id).exists()
            assert write_with_commit(connection, sql, [0] * 59 + [1, match_id])
        preparations.append(sum("+ $60" in text for text in trips.trace.splitlines()))
    assert _version(match_id) == before + 2
    assert preparations[0] >= 1 and preparations[1] == 0, preparations


def test_the_backend_overrides_none_of_djangos_private_methods() -> None:
    """The write travels with the COMMIT by an explicit call of the unit of work, not by a
    backend that holds it back in Django's private ``_cursor``, ``_commit`` or ``_close``;
    rollbacks are seen through Django's public ``rollback`` and ``savepoint_rollback``."""
    from django.db.backends.postgresql.base import DatabaseWrapper as Django

    from core.postgresql.base import DatabaseWrapper

    for name in ("_cursor", "_commit", "_close", "_rollback", "_savepoint_rollback"):
        assert getattr(DatabaseWrapper, name) is getattr(Django, name), name
    assert not hasattr(DatabaseWrapper, "held_write")


def test_a_write_inside_another_block_runs_alone_prepared_once(match_id: uuid.UUID) -> None:
    """Inside another ``atomic`` block (a match created by a request's own transaction) the
    write runs alone, prepared on its first run only, however many parameters it has."""
    adds = " + ".join(["%s"] * 60)
    sql = prepare_statement(
        f'UPDATE "games_match" SET "version" = "version" + {adds} WHERE "id" = %s'
    )
    before = _version(match_id)
    prepares = []
    for _ in range(2):
        with count_round_trips() as trips, transaction.atomic():
            with transaction.atomic():
                assert not write_with_commit(connection, sql, [0] * 59 + [1, match_id])
                write_alone(connection, sql, [0] * 59 + [1, match_id])
            assert _version(match_id) == before + 1 + len(prepares)  # seen in the transaction
        prepares.append(sum("+ $60" in line for line in trips.trace.splitlines()))
    assert _version(match_id) == before + 2
    assert prepares[0] >= 1 and prepares[1] == 0, prepares
