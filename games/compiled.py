"""Queries on the hot paths, compiled to SQL once per process instead of on every request.

Django compiles a queryset's SQL anew each time it runs; for the match lock (a three-way
``select_related`` with ``FOR UPDATE``) and the match read that costs more CPU than the rest of
the request's own work. A ``CompiledSelect`` compiles its queryset once, then runs the same SQL
with new parameters and builds the model instances exactly as Django's ``ModelIterable`` does
(``from_db`` and the ``select_related`` populators), converters included. A ``CompiledValues``
does the same for a ``values_list`` queryset of several shapes and named parameters (the
match list), and hands back converted rows, no model instances.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, JSONField, Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.fields.json import KeyTransform
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query import get_related_populators
from django.db.models.signals import post_init, pre_init

from core import json_codec
from core.postgresql.begin import rows_beginning
from core.postgresql.prepared import prepare_statement

M = TypeVar("M", bound=Model)


def json_column(value: Any) -> Any:
    """A JSON column read with plain SQL, as the driver hands it: text (Django's setting for
    psycopg, which JSONField decodes) or already decoded."""
    return json_codec.loads(value) if isinstance(value, str | bytes) else value


def _json_from_db(value: Any, expression: Any, connection: Any) -> Any:
    """``JSONField.from_db_value`` for a plain column (no decoder), with ``core.json_codec``."""
    try:
        return json_column(value)
    except json.JSONDecodeError:  # as Django: the text itself
        return value


def _converters(compiler: Any, expressions: list[Any]) -> dict[int, tuple[list[Any], Any]]:
    """The compiler's converters per column, a JSON column's decoded by ``core.json_codec``."""
    found: dict[int, tuple[list[Any], Any]] = compiler.get_converters(expressions)
    for position, (functions, expression) in found.items():
        found[position] = (
            [
                _json_from_db
                if getattr(function, "__func__", None) is JSONField.from_db_value
                and function.__self__.decoder is None
                and not isinstance(expression, KeyTransform)
                else function
                for function in functions
            ],
            expression,
        )
    return found


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


@dataclass(frozen=True)
class _Plan:
    sql: str
    params: list[Any]
    slots: dict[int, Callable[[Any], Any]]
    model: type[Model]
    start: int
    end: int
    init_list: list[str]
    populators: list[Any]
    converters: dict[int, tuple[list[Any], Any]]
    annotations: list[tuple[str, int]]
    #: ("match", "version") -> the column's position; "" is the queried model itself.
    positions: dict[tuple[str, str], int]
    #: The instances may be built by ``_instance`` (``_plain_fields``).
    plain: bool


def _positions(klass_info: dict[str, Any], select: list[Any], path: str = "") -> dict[Any, int]:
    found = {(path, select[i][0].target.attname): i for i in klass_info["select_fields"]}
    for related in klass_info.get("related_klass_infos", []):
        name = (
            related["field"].name if not related.get("reverse") else related["field"].related_name
        )
        found |= _positions(related, select, f"{path}__{name}" if path else name)
    return found


def _plain_fields(model: type[Model]) -> bool:
    """Whether ``model.from_db`` may be replaced by ``_instance``: the model keeps Django's
    ``__init__``, ``from_db`` and ``__setattr__``, and no field's attribute is a descriptor that
    does work on assignment (a foreign key's id only drops a cached related object, and a new
    instance has none)."""
    if (
        model.__init__ is not Model.__init__
        or model.from_db.__func__ is not Model.from_db.__func__  # type: ignore[attr-defined]
        or model.__setattr__ is not Model.__setattr__
    ):
        return False
    for field in model._meta.concrete_fields:
        descriptor = getattr(model, field.attname, None)
        if hasattr(descriptor, "__set__") and not isinstance(
            descriptor, ForeignKeyDeferredAttribute
        ):
            return False
    return True


def _instance(model: type[M], using: str, names: list[str], values: list[Any]) -> M:
    """What ``model.from_db(using, names, values)`` builds, without ``Model.__init__``'s walk
    over every field (2.5-4 µs a row against 0.8-1.6 µs): the instance's state and the loaded
    columns, the fields not in ``names`` left deferred. Only for a model ``_plain_fields``
    accepts, when no ``pre_init``/``post_init`` receiver listens to it."""
    obj = model.__new__(model)
    state = ModelState()
    state.adding = False
    state.db = using
    obj.__dict__["_state"] = state
    obj.__dict__.update(zip(names, values, strict=True))
    return obj


def instance(model: type[M], using: str, names: list[str], values: list[Any]) -> M:
    """``model.from_db(using, names, values)``, built by ``_instance`` when it may (a seat's
    player, read with the seat by the match lock: two per move)."""
    if _plain(model) and not (pre_init.has_listeners(model) or post_init.has_listeners(model)):
        return _instance(model, using, names, values)
    return model.from_db(using, names, values)


@cache
def _plain(model: type[Model]) -> bool:
    return _plain_fields(model)


def new_row(model: type[M], values: dict[str, Any]) -> M:
    """``model(**values)``, a new unsaved row, without ``Model.__init__``'s generic walk over
    its arguments when ``_instance`` could build the model: ``values`` by field name (a
    foreign key as its instance, then cached as Django caches it) or attname, every other
    field its default. The unit of work makes a move and its events this way (three per
    move). Unknown names raise ``TypeError``, as Django's constructor does."""
    if not _plain(model) or pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model(**values)
    obj = model.__new__(model)
    state = ModelState()
    obj.__dict__["_state"] = state
    given = dict(values)
    for field, attname, related in _new_row_fields(model):
        name = field.name
        if related and name in given:
            target = given.pop(name)
            obj.__dict__[attname] = None if target is None else target.pk
            if target is not None:
                state.fields_cache[name] = target
                if state.db is None:  # as the foreign key's descriptor does on assignment
                    state.db = router.db_for_write(model, instance=target)
        elif attname in given:  # a field's name, or a foreign key's id by its attname
            obj.__dict__[attname] = given.pop(attname)
        else:
            obj.__dict__[attname] = field.get_default()
    if given:
        raise TypeError(f"{model.__name__}() got unexpected keyword arguments: {sorted(given)}")
    return obj


@cache
def _new_row_fields(model: type[Model]) -> tuple[tuple[Field[Any, Any], str, bool], ...]:
    return tuple(
        (field, field.attname, bool(field.is_relation and field.many_to_one))
        for field in model._meta.concrete_fields
    )


class _FastPopulator:
    """Django's ``RelatedPopulator`` for a ``select_related`` model that ``_plain_fields``
    accepts, building its instance with ``_instance`` (when no ``pre_init``/``post_init``
    receiver listens) instead of ``from_db``; the rest is Django's, unchanged."""

    def __init__(self, django: Any) -> None:
        self._django = django

    @staticmethod
    def fits(django: Any) -> bool:
        """Whether ``_instance`` may build what this Django populator builds: a plain model
        whose columns need no reordering and that has no ``select_related`` of its own."""
        return bool(
            _plain_fields(django.model_cls)
            and django.reorder_for_init is None
            and not django.related_populators
        )

    def populate(self, row: list[Any], from_obj: Model) -> None:
        django = self._django
        model = django.model_cls
        if pre_init.has_listeners(model) or post_init.has_listeners(model):
            django.populate(row, from_obj)
            return
        data = row[django.cols_start : django.cols_end]
        obj = (
            None
            if data[django.pk_idx] is None
            else _instance(model, django.db, django.init_list, data)
        )
        django.local_setter(from_obj, obj)
        if obj is not None:
            django.remote_setter(obj, from_obj)


class Fetched(Generic[M]):
    """The raw rows of one fetch: single columns can be read before (or instead of) building
    the model instances, which is most of a small query's CPU."""

    def __init__(
        self, plan: _Plan, using: str, rows: list[tuple[Any, ...]], connection: Any
    ) -> None:
        self._plan, self._using, self.rows = plan, using, rows
        # Looked up once: each ``connections[alias]`` costs ≈ 1 µs (a thread-local behind an
        # attribute lookup that fails first).
        self._connection = connection

    def value(self, row: tuple[Any, ...], path: str, attname: str) -> Any:
        """Column ``attname`` of the model at ``path`` ("" or e.g. "match"), converted as
        Django converts it."""
        position = self._plan.positions[(path, attname)]
        value = row[position]
        if position in self._plan.converters:
            functions, expression = self._plan.converters[position]
            for function in functions:
                value = function(value, expression, self._connection)
        return value

    def build(self) -> list[M]:
        """The rows as the built queryset would return them."""
        plan, using, connection = self._plan, self._using, self._connection
        model = plan.model
        fast = (
            plan.plain and not pre_init.has_listeners(model) and not post_init.has_listeners(model)
        )
        result: list[M] = []
        for raw in self.rows:
            row = list(raw)
            for position, (functions, expression) in plan.converters.items():
                for function in functions:
                    row[position] = function(row[position], expression, connection)
            values = row[plan.start : plan.end]
            if fast:
                obj = _instance(model, using, plan.init_list, values)
            else:
                obj = model.from_db(using, plan.init_list, values)
            for populator in plan.populators:
                populator.populate(row, obj)
            for name, position in plan.annotations:
                setattr(obj, name, row[position])
            result.append(obj)  # type: ignore[arg-type]
        return result


class CompiledSelect(Generic[M]):
    def __init__(
        self,
        build: Callable[[str], QuerySet[M]],
        *,
        for_write: bool = False,
        prepare: bool = False,
    ) -> None:
        """``build(value)`` returns the queryset for one UUID parameter value. The database
        is the router's choice at each fetch (a read may go to a replica, games/routers.py);
        ``for_write`` (a lock) always takes the writer's. ``prepare``: a prepared statement on
        PostgreSQL (core/postgresql/prepared.py), for a lookup by key whose plan never
        depends on the value; a lock that is also prepared sends the transaction's ``BEGIN``
        with it when it is the transaction's first statement (core/postgresql/begin.py)."""
        self._build = build
        self._for_write = for_write
        self._prepare = prepare
        self._plans: dict[str, _Plan] = {}
        self._lock = threading.Lock()

    def _compile(self, using: str) -> _Plan:
        queryset = self._build(PLACEHOLDER)
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        if self._prepare:
            prepare_statement(sql)
        # The backend prepared the placeholder its own way (a UUID on PostgreSQL, 32 hex digits
        # on SQLite): remember how, to prepare each real value alike.
        slots = {i: f for i, p in enumerate(params) if (f := _preparer(p)) is not None}
        select, klass_info = compiler.select, compiler.klass_info
        assert klass_info is not None
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        return _Plan(
            sql=sql,
            params=list(params),
            slots=slots,
            model=klass_info["model"],
            start=start,
            end=end,
            init_list=[column[0].target.attname for column in select[start:end]],
            populators=[
                _FastPopulator(populator) if _FastPopulator.fits(populator) else populator
                for populator in get_related_populators(klass_info, select, using)  # type: ignore[call-arg]
            ],
            converters=_converters(compiler, [column[0] for column in select]),
            annotations=list(compiler.annotation_col_map.items()),
            positions=_positions(klass_info, select),
            plain=_plain_fields(klass_info["model"]),
        )

    def rows(self, value: Any) -> Fetched[M]:
        """Run the query for ``value``; the rows, not yet model instances."""
        using = router.db_for_write(Model) if self._for_write else router.db_for_read(Model)
        plan = self._plans.get(using)
        if plan is None:
            with self._lock:
                plan = self._plans.get(using)
                if plan is None:
                    plan = self._plans[using] = self._compile(using)
        bound = [plan.slots[i](value) if i in plan.slots else p for i, p in enumerate(plan.params)]
        connection = connections[using]
        if self._for_write and self._prepare:  # a lock opens its transaction: BEGIN with it
            rows = rows_beginning(connection, plan.sql, bound)
            if rows is not None:
                return Fetched(plan, using, rows, connection)
        with connection.cursor() as cursor:
            cursor.execute(plan.sql, bound)
            rows = cursor.fetchall()
        return Fetched(plan, using, rows, connection)

    def fetch(self, value: Any) -> list[M]:
        """The rows for ``value``, as the built queryset would return them."""
        return self.rows(value).build()


@dataclass(frozen=True)
class Parameter:
    """A named parameter of a ``CompiledValues`` query: the marker value the queryset is
    compiled with (unlike any real value) and how a value reaches the database, as Django
    prepares it for a lookup on ``field``."""

    field: Field[Any, Any]
    marker: Any

    def prepare(self, value: Any, connection: BaseDatabaseWrapper) -> Any:
        return self.field.get_db_prep_value(value, connection, prepared=False)


@dataclass(frozen=True)
class _ValuesPlan:
    sql: str
    params: tuple[Any, ...]
    #: (position in ``params``, parameter name) for every occurrence of a marker.
    slots: tuple[tuple[int, str], ...]
    converters: dict[int, tuple[list[Any], Any]]


class CompiledValues:
    """A ``values_list`` queryset compiled once per database and shape, then run with new
    parameter values; its rows converted as Django's ``results_iter`` converts them.

    ``build(shape, markers)`` returns the queryset of one shape (which filters, which
    ordering: anything that changes the SQL text), with each named parameter's marker where
    its value goes. A page's bounds are applied as Django applies a slice: ``LIMIT``/``OFFSET``
    written into the SQL (``ops.limit_offset_sql``), so the statement is the one the sliced
    queryset would send.
    """

    def __init__(
        self,
        model: type[Model],
        build: Callable[[Hashable, Mapping[str, Any]], QuerySet[Any, Any]],
        parameters: Mapping[str, Parameter],
    ) -> None:
        self._model = model
        self._build = build
        self._parameters = dict(parameters)
        self._plans: dict[tuple[str, Hashable], _ValuesPlan] = {}
        self._lock = threading.Lock()

    def _compile(self, using: str, shape: Hashable, names: frozenset[str]) -> _ValuesPlan:
        markers = {name: parameter.marker for name, parameter in self._parameters.items()}
        compiler = self._build(shape, markers).query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        connection = connections[using]
        prepared = {
            name: parameter.prepare(parameter.marker, connection)
            for name, parameter in self._parameters.items()
        }
        slots = tuple(
            (i, name)
            for i, param in enumerate(params)
            for name, marker in prepared.items()
            if type(param) is type(marker) and param == marker
        )
        found = {name for _, name in slots}
        if found != names:
            raise ValueError(f"shape {shape!r}: parameters {sorted(found)}, given {sorted(names)}")
        if compiler.col_count != len(compiler.select):
            raise ValueError(f"shape {shape!r}: columns selected beyond the values asked for")
        return _ValuesPlan(
            sql=sql,
            params=tuple(params),
            slots=slots,
            converters=_converters(compiler, [column[0] for column in compiler.select]),
        )

    def rows(
        self,
        shape: Hashable,
        values: Mapping[str, Any],
        *,
        low: int = 0,
        high: int | None = None,
    ) -> list[list[Any]]:
        """The converted rows of ``shape`` run with ``values`` (every parameter the shape
        uses, no other), from ``low`` to ``high`` as a slice ``[low:high]`` would take them."""
        using = router.db_for_read(self._model)
        key = (using, shape)
        plan = self._plans.get(key)
        if plan is None:
            with self._lock:
                plan = self._plans.get(key)
                if plan is None:
                    plan = self._plans[key] = self._compile(using, shape, frozenset(values))
        connection = connections[using]
        bound = list(plan.params)
        for position, name in plan.slots:
            bound[position] = self._parameters[name].prepare(values[name], connection)
        sql = plan.sql
        if low or high is not None:
            sql = f"{sql} {connection.ops.limit_offset_sql(low, high)}"
        with connection.cursor() as cursor:
            cursor.execute(sql, bound)
            found = cursor.fetchall()
        converters = plan.converters.items()
        rows = []
        for raw in found:
            row = list(raw)
            for position, (functions, expression) in converters:
                for function in functions:
                    row[position] = function(row[position], expression, connection)
            rows.append(row)
        return rows
