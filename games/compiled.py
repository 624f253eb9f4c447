"""Queries on the hot paths, compiled to SQL once per process instead of on every request.

Django compiles a queryset's SQL anew each time it runs; for the match lock (a three-way
``select_related`` with ``FOR UPDATE``) and the match read that costs more CPU than the rest of
the request's own work. A ``CompiledSelect`` compiles its queryset once, then runs the same SQL
with new parameters and builds the model instances exactly as Django's ``ModelIterable`` does
(``from_db`` and the ``select_related`` populators), converters included.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from django.db import connections, router
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

M = TypeVar("M", bound=Model)

#: Stands in for the parameter at compile time; every occurrence is replaced at run time.
PLACEHOLDER = "00000000-0000-0000-0000-00000000c0de"


def _preparer(param: Any) -> Callable[[Any], Any] | None:
    """How the compiled query holds the placeholder, or None if ``param`` is not it."""
    marker = uuid.UUID(PLACEHOLDER)
    if param == marker:
        return lambda value: uuid.UUID(str(value))
    if param == marker.hex:
        return lambda value: uuid.UUID(str(value)).hex
    if param == PLACEHOLDER:
        return str
    return None


class CompiledSelect(Generic[M]):
    def __init__(self, build: Callable[[str], QuerySet[M]], *, for_write: bool = False) -> None:
        """``build(value)`` returns the queryset for one UUID parameter value. The database
        is the router's choice at each fetch (a read may go to a replica, games/routers.py);
        ``for_write`` (a lock) always takes the writer's."""
        self._build = build
        self._for_write = for_write
        self._plans: dict[str, tuple[Any, ...]] = {}
        self._lock = threading.Lock()

    def _compile(self, using: str) -> tuple[Any, ...]:
        queryset = self._build(PLACEHOLDER)
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        # The backend prepared the placeholder its own way (a UUID on PostgreSQL, 32 hex digits
        # on SQLite): remember how, to prepare each real value alike.
        slots = {i: _preparer(p) for i, p in enumerate(params) if _preparer(p) is not None}
        select, klass_info = compiler.select, compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        init_list = [column[0].target.attname for column in select[start:end]]
        populators = get_related_populators(klass_info, select, using)  # type: ignore[call-arg]
        converters = list(compiler.get_converters([column[0] for column in select]).items())
        annotations = list(compiler.annotation_col_map.items())
        return (
            sql,
            list(params),
            slots,
            klass_info["model"],
            start,
            end,
            init_list,
            (populators),
            converters,
            annotations,
        )

    def fetch(self, value: Any) -> list[M]:
        """The rows for ``value``, as the built queryset would return them."""
        using = router.db_for_write(Model) if self._for_write else router.db_for_read(Model)
        plan = self._plans.get(using)
        if plan is None:
            with self._lock:
                plan = self._plans.get(using)
                if plan is None:
                    plan = self._plans[using] = self._compile(using)
        sql, params, slots, model, start, end, init_list, populators, converters, annotations = plan
        bound: Sequence[Any] = [slots[i](value) if i in slots else p for i, p in enumerate(params)]
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(sql, bound)
            rows = cursor.fetchall()
        result: list[M] = []
        for raw in rows:
            row = list(raw)
            for position, (functions, expression) in converters:
                for function in functions:
                    row[position] = function(row[position], expression, connection)
            obj = model.from_db(using, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for name, position in annotations:
                setattr(obj, name, row[position])
            result.append(obj)
        return result
