"""The unit of work's hand-assembled statements (games/services/statements.py) write exactly
what Django's compilers write, for every column type the models have."""

from __future__ import annotations

import copy
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import F, Model
from django.utils import timezone

from games.models import Match, MatchEvent, Move, Seat
from games.services.statements import _django_insert, _django_update, insert_sql, update_sql
from tests.players import Player, play_to_end, start_match

pytestmark = pytest.mark.django_db


def _rows(model: type[Model], match_id: str) -> list[dict[str, Any]]:
    rows = model.objects.filter(match_id=match_id).order_by("pk").values()
    return [{k: v for k, v in row.items() if k != "id"} for row in rows]


def _written(model: type[Model], match_id: str, rows: list[Any], build: Any) -> Any:
    """Delete ``rows``, write copies of them with ``build``, read them back; undo it all."""
    with transaction.atomic():
        point = transaction.savepoint()
        model.objects.filter(pk__in=[row.pk for row in rows]).delete()
        copies = [copy.copy(row) for row in rows]
        for row in copies:
            row.pk = None
        sql, params = build(model, copies)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        found = _rows(model, match_id)
        transaction.savepoint_rollback(point)
    return found


@pytest.mark.parametrize("model", [Move, MatchEvent])
def test_inserts_equal_djangos(model: type[Model], alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    play_to_end(match_id, [alice, bob])
    rows = list(model.objects.filter(match_id=match_id).order_by("pk"))
    assert len(rows) > 4
    ours = _written(model, match_id, rows, insert_sql)
    djangos = _written(model, match_id, rows, _django_insert)
    assert ours == djangos
    assert ours == _rows(model, match_id)  # and both equal what the match wrote in play


def _updated(model: type[Model], pk: Any, values: dict[str, Any], build: Any) -> dict[str, Any]:
    with transaction.atomic():
        point = transaction.savepoint()
        sql, params = build(model, pk, values)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            assert cursor.rowcount == 1
        found = model.objects.filter(pk=pk).values().get()
        transaction.savepoint_rollback(point)
    return found


def test_updates_equal_djangos(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    assert alice.move(match_id, 1, {"card": 3}).status_code == 202
    match = Match.objects.get(pk=match_id)
    seat = Seat.objects.get(match_id=match_id, index=1)
    move = Move.objects.filter(match_id=match_id).first()
    cases: list[tuple[type[Model], Any, dict[str, Any]]] = [
        (
            Match,
            match.pk,
            {
                "state": {"nested": [1, {"a": None}], "text": "ü'\"%s"},
                "deadline": timezone.now() + timedelta(hours=3),
                "version": 41,
                "status": Match.Status.ACTIVE,
                "result": None,
                "submitted_mask": 3,
            },
        ),
        (Seat, seat.pk, {"bot_memory": {"seen": [1, 2]}, "forfeited": True, "user_id": None}),
        (Move, move.pk, {"payload": {"card": 2}, "source": Move.Source.BOT}),
    ]
    for model, pk, values in cases:
        assert _updated(model, pk, values, update_sql) == _updated(
            model, pk, values, _django_update
        ), model


def test_an_expression_goes_through_djangos_compiler(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    version = Match.objects.get(pk=match_id).version
    sql, params = update_sql(Match, match_id, {"version": F("version") + 1})
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
    assert Match.objects.get(pk=match_id).version == version + 1


def test_a_match_insert_with_its_key_equals_djangos(alice: Player, bob: Player) -> None:
    """A new match is inserted with its Python-made UUID (``with_pk``), by the creation's one
    statement (games/services/unit_of_work.py): the same row as Django's compiler writes."""
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    match = Match.objects.get(pk=match_id)
    match.time_control = {"initial": 60, "increment": 5}
    match.deadline = timezone.now() + timedelta(hours=1)

    def written(build: Any) -> dict[str, Any]:
        with transaction.atomic():
            point = transaction.savepoint()
            copied = copy.copy(match)
            copied.pk = uuid.uuid4()
            sql, params = build(Match, [copied], with_pk=True)
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
            found = Match.objects.filter(pk=copied.pk).values().get()
            transaction.savepoint_rollback(point)
        found.pop("id")
        found.pop("created_at")  # set by auto_now_add at each insert
        return found

    ours = written(insert_sql)
    assert ours == written(_django_insert)
    assert ours["deadline"] == match.deadline and ours["state"] == match.state


def test_a_naive_datetime_is_prepared_as_djangos_compiler_prepares_it(
    alice: Player, bob: Player
) -> None:
    # Aware datetimes and UUID keys are passed as they are; a naive datetime still takes
    # Django's path (its warning, then made aware), so both statements carry the same value.
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    assert alice.move(match_id, 1, {"card": 3}).status_code == 202
    move = Move.objects.get(match_id=match_id, seat=0)
    move.pk = None
    move.submitted_at = timezone.make_naive(move.submitted_at)
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        ours = insert_sql(Move, [move])[1]
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        djangos = _django_insert(Move, [move])[1]
    # JSON values are wrapped (psycopg's Jsonb), which compare by identity: compare what they hold.
    assert [getattr(v, "obj", v) for v in ours] == [getattr(v, "obj", v) for v in djangos]
    assert timezone.is_aware(next(v for v in ours if hasattr(v, "utcoffset")))
