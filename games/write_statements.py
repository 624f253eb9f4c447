"""A change's INSERT and UPDATE statements, built without Django's query compilers.

Building and compiling an ``InsertQuery`` cost more CPU than the rest of a move's write. The SQL
depends only on the table and the columns, so it comes from cached field lists; each value is
prepared as Django's compilers prepare it, with the fields' documented methods (``pre_save``
then ``get_db_prep_save`` for an insert, ``get_db_prep_save`` for an update). A value Django
would treat specially (an expression, a model instance, a field with its own placeholder)
raises ``NotPlain``: the unit of work then writes that change with the ORM.
``tests/services/test_statements.py`` compares what both write; the statements run through
core/postgresql/own.py with the match lock's (games/match_store.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.models import Field, Model


def _connection() -> Any:
    """The default database's connection object itself: ``django.db.connection`` is a proxy
    that looks the thread's connection up on every attribute (dozens of times per write)."""
    return connections[DEFAULT_DB_ALIAS]


@cache
def _quote(name: str) -> str:
    # A table or column name quoted as PostgreSQL and SQLite both quote it ("name").
    return str(_connection().ops.quote_name(name))


@cache
def _insert_fields(model: type[Model], with_pk: bool = False) -> tuple[Field[Any, Any], ...]:
    return tuple(f for f in model._meta.concrete_fields if with_pk or not f.primary_key)


@cache
def _insert_head(model: type[Model], with_pk: bool = False) -> tuple[str, str]:
    fields = _insert_fields(model, with_pk)
    columns = ", ".join(_quote(str(f.column)) for f in fields)
    return f"INSERT INTO {_quote(model._meta.db_table)} ({columns}) VALUES ", (
        "(" + ", ".join(["%s"] * len(fields)) + ")"
    )


@cache
def _field(model: type[Model], name: str) -> Field[Any, Any]:
    return model._meta.get_field(name)  # type: ignore[return-value]


def _plain(field: Field[Any, Any], value: Any) -> bool:
    """Whether Django's compiler would prepare ``value`` with ``get_db_prep_save`` alone."""
    special = hasattr(value, "resolve_expression") or hasattr(value, "prepare_database_save")
    return not special and not hasattr(field, "get_placeholder")


# Django's own field classes whose saved value is the Python value itself when it already
# has the column's type (their ``pre_save`` reads the attribute, ``get_db_prep_save`` only
# converts): such values skip both calls, which were most of an insert's CPU.
_AS_IS: dict[type[Any], type[Any]] = {
    models.BooleanField: bool,
    models.IntegerField: int,
    models.SmallIntegerField: int,
    models.BigIntegerField: int,
    models.PositiveIntegerField: int,
    models.PositiveSmallIntegerField: int,
    models.PositiveBigIntegerField: int,
    models.CharField: str,
    models.TextField: str,
}


def _as_is(field: Field[Any, Any], vendor: str, native_uuid: bool) -> type[Any] | None:
    """The type of ``field``'s values that are saved as they are on this backend, if any."""
    kind = _AS_IS.get(type(field))
    if kind is not None:
        return kind
    # PostgreSQL's adapter passes an (aware) datetime as it is; a field that sets its own
    # value (auto_now, auto_now_add) still goes through pre_save.
    sets_itself = getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
    if type(field) is models.DateTimeField and vendor == "postgresql" and not sets_itself:
        return datetime
    # A foreign key to a UUID key: the UUID itself, where the database has a UUID type.
    uuid_key = type(getattr(field, "target_field", None)) is models.UUIDField
    if type(field) is models.ForeignKey and native_uuid and uuid_key:
        return uuid.UUID
    return None


@cache
def _insert_plan(
    model: type[Model], with_pk: bool, vendor: str, native_uuid: bool
) -> tuple[tuple[Field[Any, Any], type[Any] | None], ...]:
    """Each inserted field with the type of its values saved as they are (``_as_is``)."""
    return tuple((f, _as_is(f, vendor, native_uuid)) for f in _insert_fields(model, with_pk))


def _save_value(field: Field[Any, Any], kind: type[Any] | None, row: Any, connection: Any) -> Any:
    if kind is not None:
        value = getattr(row, field.attname)
        if value is None:
            return value
        # A naive datetime goes Django's way (its warning, then made aware).
        if type(value) is kind and (kind is not datetime or value.utcoffset() is not None):
            return value
    value = field.pre_save(row, True)
    if not _plain(field, value):
        raise NotPlain(field.name)
    return field.get_db_prep_save(value, connection)


class NotPlain(Exception):
    """A value Django's compiler treats specially (an expression, a model instance, a field
    with its own placeholder): not written by these statements."""


def insert_sql(
    model: type[Model], rows: list[Any], *, with_pk: bool = False, connection: Any = None
) -> tuple[str, list[Any]]:
    """One multi-row INSERT of ``rows``: every concrete column but the primary key, which the
    database assigns, or with it (``with_pk``: a key made in Python, a match's UUID).
    ``connection``: the default database's, when the caller has it already. ``NotPlain``:
    module docstring."""
    connection = connection or _connection()
    plan = _insert_plan(
        model, with_pk, connection.vendor, connection.features.has_native_uuid_field
    )
    params = [_save_value(field, kind, row, connection) for row in rows for field, kind in plan]
    head, one = _insert_head(model, with_pk)
    return head + ", ".join([one] * len(rows)), params


def update_sql(
    model: type[Model], pk: Any, values: dict[str, Any], *, connection: Any = None
) -> tuple[str, list[Any]]:
    """``UPDATE … SET … WHERE pk = …`` for ``values`` (field names or attnames)."""
    sets: list[str] = []
    params: list[Any] = []
    connection = connection or _connection()
    for name, value in values.items():
        field = _field(model, name)
        if not _plain(field, value):
            raise NotPlain(name)
        sets.append(f"{_quote(str(field.column))} = %s")
        params.append(field.get_db_prep_save(value, connection))
    meta = model._meta
    assert meta.pk is not None
    params.append(meta.pk.get_db_prep_value(pk, connection))
    table = _quote(meta.db_table)
    sql = f"UPDATE {table} SET {', '.join(sets)} WHERE {table}.{_quote(str(meta.pk.column))} = %s"
    return sql, params
