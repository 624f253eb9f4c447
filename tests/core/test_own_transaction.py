"""The unit of work's own transaction (core/postgresql/own.py) on the real PostgreSQL: what
may not run inside it, what a failure leaves, and its follow-ups after the commit, with the
match's lock released (games/services/follow_ups.py, ``change_committed``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import DatabaseError, connection, connections, transaction

from games.models import Match
from games.services.follow_ups import change_committed
from games.services.unit_of_work import MatchChange, match_change
from tests.players import make_player, start_match

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def match_id() -> uuid.UUID:
    return uuid.UUID(start_match("gops", [make_player(), make_player()]))


@pytest.fixture
def received() -> Iterator[list[Any]]:
    seen: list[Any] = []

    def receiver(change: MatchChange, **_: Any) -> None:
        seen.append(_from_outside(change.match.pk))

    change_committed.connect(receiver, dispatch_uid="test.received")
    yield seen
    change_committed.disconnect(dispatch_uid="test.received")


def _from_outside(match_id: uuid.UUID) -> tuple[str, bool]:
    """The match's status as another connection reads it, and whether it could lock the row
    at once (NOWAIT): the change's lock is released."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("BEGIN")
            try:
                cursor.execute(
                    "SELECT status FROM games_match WHERE id = %s FOR UPDATE NOWAIT", [match_id]
                )
                (status,) = cursor.fetchone()
                free = True
            except DatabaseError:
                free, status = False, "?"
            cursor.execute("ROLLBACK")
        return status, free
    finally:
        other.close()


def test_follow_ups_run_after_the_commit_outside_the_lock(
    match_id: uuid.UUID, received: list[Any]
) -> None:
    with match_change(match_id) as tx:
        tx.match.status = Match.Status.ABORTED
        assert received == []
    assert received == [(Match.Status.ABORTED, True)]
    assert transaction.get_autocommit()


def test_a_rolled_back_change_sends_nothing(match_id: uuid.UUID, received: list[Any]) -> None:
    with pytest.raises(ZeroDivisionError), match_change(match_id) as tx:
        tx.match.status = Match.Status.ABORTED
        tx.after_commit(lambda: received.append("after"))
        raise ZeroDivisionError
    assert received == []
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE
    assert transaction.get_autocommit()


def test_inside_a_change_on_commit_is_refused(match_id: uuid.UUID) -> None:
    ran: list[str] = []
    with pytest.raises(transaction.TransactionManagementError), match_change(match_id) as tx:
        tx.match.status = Match.Status.ABORTED
        transaction.on_commit(lambda: ran.append("early"))
    assert ran == []
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE
    assert transaction.get_autocommit()


def test_a_nested_atomic_is_a_savepoint_of_the_change(match_id: uuid.UUID) -> None:
    with pytest.raises(ZeroDivisionError), match_change(match_id) as tx:
        with transaction.atomic():
            Match.objects.filter(pk=match_id).update(version=99)
        tx.match.status = Match.Status.ABORTED
        raise ZeroDivisionError
    assert Match.objects.get(pk=match_id).version != 99  # rolled back with the change
    assert transaction.get_autocommit()


def test_djangos_own_atomic_without_savepoint_joins_the_change(match_id: uuid.UUID) -> None:
    with pytest.raises(ZeroDivisionError), match_change(match_id):
        Match.objects.filter(pk=match_id).delete()  # Django: atomic(savepoint=False)
        raise ZeroDivisionError
    assert Match.objects.filter(pk=match_id).exists()  # rolled back with the change


def test_a_write_that_updated_no_match_row_commits_nothing(match_id: uuid.UUID) -> None:
    refused = pytest.raises(DatabaseError, match="0 match rows updated, not 1")
    with refused, match_change(match_id) as tx:
        with connection.cursor() as cursor:  # the row goes, inside the same transaction
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            cursor.execute("DELETE FROM games_match WHERE id = %s", [match_id])
        tx.match.status = Match.Status.ABORTED
    assert Match.objects.filter(pk=match_id, status=Match.Status.ACTIVE).exists()
    assert transaction.get_autocommit()


def test_inside_another_atomic_block_the_change_joins_it(
    match_id: uuid.UUID, received: list[Any]
) -> None:
    with transaction.atomic():
        with match_change(match_id) as tx:
            tx.match.status = Match.Status.ABORTED
        assert received == []
    assert received == [(Match.Status.ABORTED, True)]


def test_the_backend_overrides_nothing_of_djangos_wrapper() -> None:
    from django.db.backends.postgresql.base import DatabaseWrapper as Django

    from core.postgresql.base import DatabaseWrapper

    own = {name for name in vars(DatabaseWrapper) if not name.startswith("__")}
    assert own == {"ops_class"}, own
    assert issubclass(DatabaseWrapper, Django)
