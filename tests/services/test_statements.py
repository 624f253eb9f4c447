"""The unit of work's hand-assembled statements (games/write_statements.py) write exactly
what Django's ORM writes, for every column type the models have; a value only the ORM writes
(an expression) is refused, and the unit of work writes that change with the ORM."""

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
from games.services.unit_of_work import match_change
from games.write_statements import NotPlain, insert_sql, update_sql
from tests.players import Player, play_to_end, start_match

pytestmark = pytest.mark.django_db


def _rows(model: type[Model], match_id: str) -> list[dict[str, Any]]:
    rows = model.objects.filter(match_id=match_id).order_by("pk").values()
    return [{k: v for k, v in row.items() if k != "id"} for row in rows]


def _ours(model: type[Model], rows: list[Any], **options: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(*insert_sql(model, rows, **options))


def _djangos(model: type[Model], rows: list[Any], **options: Any) -> None:
    model._default_manager.bulk_create(rows)


def _written(model: type[Model], match_id: str, rows: list[Any], write: Any) -> Any:
    """Delete ``rows``, write copies of them with ``write``, read them back; undo it all."""
    with transaction.atomic():
        point = transaction.savepoint()
        model.objects.filter(pk__in=[row.pk for row in rows]).delete()
        copies = [copy.copy(row) for row in rows]
        for row in copies:
            row.pk = None
        write(model, copies)
        found = _rows(model, match_id)
        transaction.savepoint_rollback(point)
    return found


@pytest.mark.parametrize("model", [Move, MatchEvent])
def test_inserts_equal_djangos(model: type[Model], alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    play_to_end(match_id, [alice, bob])
    rows = list(model.objects.filter(match_id=match_id).order_by("pk"))
    assert len(rows) > 4
    ours = _written(model, match_id, rows, _ours)
    djangos = _written(model, match_id, rows, _djangos)
    assert ours == djangos
    assert ours == _rows(model, match_id)  # and both equal what the match wrote in play


def _update_ours(model: type[Model], pk: Any, values: dict[str, Any]) -> int:
    with connection.cursor() as cursor:
        cursor.execute(*update_sql(model, pk, values))
        return int(cursor.rowcount)


def _update_djangos(model: type[Model], pk: Any, values: dict[str, Any]) -> int:
    return int(model._default_manager.filter(pk=pk).update(**values))


def _updated(model: type[Model], pk: Any, values: dict[str, Any], write: Any) -> dict[str, Any]:
    with transaction.atomic():
        point = transaction.savepoint()
        assert write(model, pk, values) == 1
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
        assert _updated(model, pk, values, _update_ours) == _updated(
            model, pk, values, _update_djangos
        ), model


def test_an_expression_is_refused_and_the_change_written_by_the_orm(
    alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    version = Match.objects.get(pk=match_id).version
    with pytest.raises(NotPlain):
        update_sql(Match, match_id, {"version": F("version") + 1})
    with match_change(match_id) as tx:
        tx.match.version = F("version") + 10
    assert Match.objects.get(pk=match_id).version == version + 10


def test_the_statements_use_no_orm_compiler() -> None:
    """The statements are SQL text with values prepared by the fields' documented methods:
    no ``InsertQuery``/``UpdateQuery`` and no ``get_compiler`` (the ORM's internals)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path("games/write_statements.py").read_text())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {"InsertQuery", "UpdateQuery"} & names
    assert "get_compiler" not in attributes and "django.db.models.sql" not in modules


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
            build(Match, [copied], with_pk=True)
            found = Match.objects.filter(pk=copied.pk).values().get()
            transaction.savepoint_rollback(point)
        found.pop("id")
        found.pop("created_at")  # set by auto_now_add at each insert
        return found

    ours = written(_ours)
    assert ours == written(_djangos)
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
    aware = timezone.make_aware(move.submitted_at)
    assert aware in ours and timezone.is_aware(next(v for v in ours if hasattr(v, "utcoffset")))
