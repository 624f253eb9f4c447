"""No other package's internals in the application: a scan of its syntax trees.

The application packages may use only the public, documented API of their dependencies, so an
upgrade of Django, DRF, psycopg, granian or sentry-sdk breaks a test rather than production.
The scan reports, as ``path:line: what``:

- an imported underscore name or module path of another package (``from psycopg._queries
  import …``, ``import granian._internal``), also through ``importlib.import_module``,
  ``__import__`` and Django's ``import_string`` with a constant path;
- an attribute ``x._name`` that the file does not define itself (as a class, function, method,
  attribute or module-level name) and that is not a documented underscore API; where the
  file's own name collides with a private name of Django, DRF or psycopg, only ``self._name``
  and ``cls._name`` count as its own;
- the same names spelt as strings: ``getattr``/``setattr``/``hasattr``/``delattr``,
  ``vars(x)[…]``, ``x.__dict__[…]``, ``operator.attrgetter``/``methodcaller`` and
  ``__getattribute__``, with constant strings (also folded from ``+``, f-strings and
  module-level constants);
- an assignment (or ``setattr``) to an attribute of another package's module or class (a
  monkeypatch);
- a method ``_name`` of a subclass of another package's class that the base class defines (an
  override of a private method), and ``self._name`` in such a subclass where the base class
  defines or sets ``_name`` (its private state); bases are followed through aliases
  (``Base = DatabaseWrapper; class W(Base)``);
- the undocumented modules and ORM/handler internals named in ``INTERNALS``, and the
  undocumented names without an underscore in ``REFUSED`` (Django's connection-wrapper state,
  psycopg's row loading), as attributes, imports, strings or overrides.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Every top-level package of the application (the tests and the scripts are not).
PACKAGES = tuple(
    sorted(path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests")
)

#: Underscore names that are documented public API.
DOCUMENTED = frozenset({
    "_meta",  # Django: "Model _meta API"
    "_default_manager",  # Django: "Managers", default managers
    "_base_manager",  # Django: "Managers", base managers
    "_state",  # Django: "Model instance reference", the model's state (adding, db)
    "_db",  # Django: custom managers' ``using(self._db)`` ("Customizing authentication")
    "_asdict", "_replace", "_fields", "_make", "_field_defaults",  # collections.namedtuple
    "_exit",  # os._exit, documented in the os module
    "_getframe",  # sys._getframe, documented in the sys module
})  # fmt: skip

#: Undocumented modules and internals of Django and psycopg: names that reach into them.
INTERNALS = frozenset({
    "generators",  # psycopg.generators (as a module path of psycopg)
    "klass_info",
    "get_related_populators",
    "RelatedPopulator",
    "ModelIterable",
    "results_iter",
    "get_compiler",
    "set_cached_value",
    "fields_cache",
    "PostgresQuery",
    "response_for_exception",
})  # fmt: skip

#: Undocumented names without an underscore: refused as attributes, imports and strings.
REFUSED = {
    "atomic_blocks": "Django's connection state; transaction.atomic is the API",
    "savepoint_ids": "Django's connection state; transaction.savepoint is the API",
    "needs_rollback": "Django's connection state; transaction.get_rollback is the API",
    "run_on_commit": "Django's connection state; transaction.on_commit is the API",
    "run_and_clear_commit_hooks": "Django's connection internals",
    "execute_wrappers": "Django's connection state; connection.execute_wrapper is the API",
    "validate_no_broken_transaction": "Django's connection internals",
    "close_if_health_check_failed": "Django's connection internals",
    "queries_log": "Django's connection state; connection.queries is the API",
    "TIMESTAMPTZ_OID": "Django's PostgreSQL backend constant",
    "ServerBindingCursor": "Django's PostgreSQL backend cursor",
    "error_from_result": "psycopg.errors internals",
    "set_pgresult": "psycopg's Transformer internals",
    "load_rows": "psycopg's Transformer internals",
    "dump_sequence": "psycopg's Transformer internals",
}
#: Undocumented methods of Django's connection wrapper: refused as overrides in a subclass.
REFUSED_OVERRIDES = frozenset({"create_cursor", "is_usable", *REFUSED})
#: Classes of other packages that may not be subclassed.
REFUSED_BASES = frozenset({"ServerBindingCursor"})
#: Calls that name an attribute in their second argument.
ATTRIBUTE_CALLS = frozenset({"getattr", "setattr", "hasattr", "delattr", "getattr_static"})
#: Calls whose string arguments are (dotted) attribute names.
GETTER_FACTORIES = frozenset({"attrgetter", "methodcaller"})
#: Calls whose first argument is a module path.
IMPORT_CALLS = frozenset({"import_module", "__import__", "import_string"})
#: Dependencies whose private names a file's own name of the same spelling cannot hide.
GUARDED = ("django", "rest_framework", "psycopg")

# Findings allowed to stay, each with why no public API exists: at most 3. None today. The
# test fails when a listed entry no longer occurs, and on any finding not listed.
REMAINING: frozenset[tuple[str, str]] = frozenset()


def _is_project(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def sources() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            yield relative, ast.parse(path.read_text(), filename=relative)


@cache
def dependency_privates() -> frozenset[str]:
    """Underscore names that Django, DRF and psycopg define (methods, classes, attributes)."""
    pattern = re.compile(r"(?:def|class)\s+(_\w+)|self\.(_\w+)\s*=|^\s*(_\w+)\s*[:=]", re.M)
    names: set[str] = set()
    for package in GUARDED:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations
        for location in spec.submodule_search_locations:
            for path in Path(location).rglob("*.py"):
                for match in pattern.finditer(path.read_text(errors="replace")):
                    names.update(name for name in match.groups() if name and _private(name))
    return frozenset(names)


@cache
def _nodes(tree: ast.Module) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(tree))


def file_names(tree: ast.Module) -> set[str]:
    """Every name the file defines itself: classes, functions and methods, module and class
    level names, attributes it assigns (``self._x = …``, ``request._x = …``; not those of
    another package's module, which would be a monkeypatch) and ``__slots__`` entries."""
    names: set[str] = set()
    _, modules = _imported(tree)
    scopes: list[ast.Module | ast.ClassDef] = [tree]
    for node in _nodes(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                scopes.append(node)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and _root(node) not in modules
        ):
            names.add(node.attr)
    for scope in scopes:
        for statement in scope.body:
            for target in _targets(statement):
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    value = getattr(statement, "value", None)
                    if target.id == "__slots__" and value is not None:
                        names.update(
                            item.value
                            for item in ast.walk(value)
                            if isinstance(item, ast.Constant) and isinstance(item.value, str)
                        )
    return names


def _targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return statement.targets
    if isinstance(statement, ast.AnnAssign):
        return [statement.target]
    return []


@cache
def _imported(tree: ast.Module) -> tuple[dict[str, str], set[str]]:
    """What each imported name stands for (``name -> module.attr``), followed through plain
    aliases (``Base = DatabaseWrapper``), and the names bound to another package's module or
    object (``import x``, ``from x import y``): setting an attribute on one of those is a
    monkeypatch."""
    table: dict[str, str] = {}
    modules: set[str] = set()
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    table[alias.asname] = alias.name
                    bound = alias.asname
                else:
                    bound = alias.name.split(".")[0]
                    table[bound] = bound
                if not _is_project(alias.name):
                    modules.add(bound)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                table[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if not _is_project(node.module):
                    modules.add(alias.asname or alias.name)
    aliases = [
        (node.targets[0].id, dotted)
        for node in _nodes(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and (dotted := _dotted(node.value)) is not None
    ]
    for _ in range(len(aliases)):  # chains of aliases resolve in as many passes
        for name, dotted in aliases:
            head, _, rest = dotted.partition(".")
            if head in table and name not in table:
                table[name] = table[head] + (f".{rest}" if rest else "")
                if head in modules:
                    modules.add(name)
    return table, modules


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _constants(tree: ast.Module) -> dict[str, str]:
    """The file's module-level string constants (``NAME = "_cursor"``)."""
    found: dict[str, str] = {}
    for statement in tree.body:
        for target in _targets(statement):
            value = getattr(statement, "value", None)
            if isinstance(target, ast.Name) and value is not None:
                folded = _fold(value, found)
                if folded is not None:
                    found[target.id] = folded
    return found


def _fold(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The string an expression always evaluates to, if the file spells it out."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _fold(node.left, constants), _fold(node.right, constants)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [
            _fold(value.value if isinstance(value, ast.FormattedValue) else value, constants)
            for value in node.values
        ]
        return None if None in parts else "".join(part or "" for part in parts)
    return None


@cache
def _resolve(dotted: str) -> Any:
    """The object a dotted path names (a module's attribute, or a nested one), or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            value = getattr(value, part, None)
        return value
    return None


def _base_private_names(node: ast.ClassDef, table: dict[str, str]) -> Iterator[tuple[int, str]]:
    """What this class takes from a class of another package among its bases: the methods
    ``_name`` (or refused public ones) it overrides, the private attributes ``self._name`` it
    reads or sets that the base defines or sets itself, and a base it may not subclass."""
    methods = {
        item.name: item.lineno
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        and (_private(item.name) or item.name in REFUSED_OVERRIDES)
    }
    attributes: dict[str, int] = {}
    for item in ast.walk(node):
        if (
            isinstance(item, ast.Attribute)
            and _private(item.attr)
            and isinstance(item.value, ast.Name)
            and item.value.id == "self"
            and item.attr not in methods
            and item.attr not in DOCUMENTED
        ):
            attributes.setdefault(item.attr, item.lineno)
    for base in node.bases:
        dotted = _dotted(base)
        if dotted is None:
            continue
        head, _, rest = dotted.partition(".")
        if head not in table or _is_project(table[head]):
            continue  # a class of the project: its own bases are checked where it is defined
        resolved = _resolve(table[head] + (f".{rest}" if rest else ""))
        if not isinstance(resolved, type):
            continue
        reported: set[str] = set()  # each name once, at the nearest class that has it
        for cls in resolved.__mro__:
            owner = getattr(cls, "__module__", "") or ""
            if _is_project(owner) or cls is object:
                continue
            package = owner.split(".")[0]
            if cls.__name__ in REFUSED_BASES and owner.startswith("django"):
                yield node.lineno, f"subclasses {package}'s {cls.__qualname__}"
            for name, line in methods.items():
                if name in vars(cls) and name not in reported:
                    reported.add(name)
                    yield line, f"overrides {package}'s {cls.__qualname__}.{name}"
            source = _source(cls)
            for name, line in attributes.items():
                if (name in vars(cls) or f"self.{name}" in source) and name not in reported:
                    reported.add(name)
                    yield line, f"uses {package}'s {cls.__qualname__}.{name}"


def _source(cls: type) -> str:
    """The source of the module defining ``cls`` (a little wider than the class: stricter)."""
    try:
        return _file_text(inspect.getsourcefile(cls))
    except TypeError:  # a class built in C
        return ""


@cache
def _file_text(path: str | None) -> str:
    return Path(path).read_text() if path else ""


def _attribute(name: str, defined: set[str], own: bool, spelt: str) -> Iterator[str]:
    """What is wrong with reaching attribute ``name``; ``own``: through ``self``/``cls``."""
    if _private(name) and name not in DOCUMENTED:
        if name not in defined:
            yield f"uses {spelt} (not defined in this file)"
        elif not own and name in dependency_privates():
            yield f"uses {spelt} (a private name of a dependency, not through self)"
    elif name in REFUSED:
        yield f"uses {spelt} ({REFUSED[name]})"
    elif name in INTERNALS and name != "generators":
        yield f"uses {spelt}"


def _module_path(path: str) -> Iterator[str]:
    """What is wrong with importing the dotted ``path`` of another package."""
    if _is_project(path):
        return
    parts = path.split(".")
    private = any(_private(part) for part in parts) or path.startswith("psycopg.generators")
    if private or parts[-1] in REFUSED or parts[-1] in INTERNALS:
        yield f"imports {path}"


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_namespace(node: ast.expr) -> bool:
    """``vars(x)`` or ``x.__dict__``: an object's attributes as a mapping."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars"
    ) or (isinstance(node, ast.Attribute) and node.attr == "__dict__")


def _strings(node: ast.Call, constants: dict[str, str]) -> Iterator[tuple[int, str, str]]:
    """Attribute names and module paths spelt as strings in a call: (line, kind, text)."""
    name = _call_name(node)
    folded = [_fold(arg, constants) for arg in node.args]
    if name in ATTRIBUTE_CALLS and len(folded) >= 2 and folded[1] is not None:
        yield node.lineno, name, folded[1]
    elif name in {"__getattribute__", "__getattr__", "__setattr__", "__delattr__"}:
        for text in folded:
            if text is not None:
                yield node.lineno, name, text
    elif name in GETTER_FACTORIES:
        for text in folded:
            for part in (text or "").split("."):
                if part:
                    yield node.lineno, name, part
    elif name in IMPORT_CALLS and folded and folded[0] is not None:
        yield node.lineno, "import", folded[0]
        for keyword in node.keywords:
            if keyword.arg == "fromlist" and isinstance(keyword.value, ast.List | ast.Tuple):
                for item in keyword.value.elts:
                    text = _fold(item, constants)
                    if text is not None:
                        yield node.lineno, "import", f"{folded[0]}.{text}"
    elif (
        isinstance(node.func, ast.Attribute)
        and node.func.attr in {"get", "pop", "setdefault"}
        and _is_namespace(node.func.value)
        and folded
        and folded[0] is not None
    ):
        yield node.lineno, "vars", folded[0]


def findings_in(path: str, tree: ast.Module, defined: set[str]) -> Iterator[tuple[int, str]]:
    """Every finding in one file; ``defined``: the names the file defines itself."""
    table, modules = _imported(tree)
    constants = _constants(tree)
    called = {id(node.func) for node in _nodes(tree) if isinstance(node, ast.Call)}
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                for what in _module_path(alias.name):
                    yield node.lineno, what
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if _is_project(node.module) or node.module == "__future__":
                continue
            if any(_module_path(node.module)):
                yield node.lineno, f"imports from {node.module}"
            psycopg = node.module.split(".")[0] == "psycopg"
            for alias in node.names:
                internal = alias.name in INTERNALS and (alias.name != "generators" or psycopg)
                if _private(alias.name) or internal or alias.name in REFUSED:
                    yield node.lineno, f"imports {node.module}.{alias.name}"
        elif isinstance(node, ast.Attribute):
            own = isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}
            for what in _attribute(node.attr, defined, own, f".{node.attr}"):
                yield node.lineno, what
            if node.attr == "generators" and _dotted(node) == "psycopg.generators":
                yield node.lineno, "uses psycopg.generators"
            if node.attr == "lock" and id(node) not in called and "lock" not in defined:
                yield node.lineno, "uses .lock (psycopg's connection lock is undocumented)"
            if isinstance(node.ctx, ast.Store) and _root(node) in modules:
                yield node.lineno, f"assigns {_dotted(node)} (another package's)"
        elif isinstance(node, ast.Call):
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and node.args
                and _root(node.args[0]) in modules
            ):
                target = _dotted(node.args[0])
                yield node.lineno, f"sets an attribute of {target} (another package's)"
            for line, kind, text in _strings(node, constants):
                if kind == "import":
                    for what in _module_path(text):
                        yield line, f"{what} (dynamically)"
                else:
                    own = bool(node.args) and _dotted(node.args[0]) in {"self", "cls"}
                    for what in _attribute(text, defined, own, f'"{text}" through {kind}'):
                        yield line, what
        elif isinstance(node, ast.Subscript) and _is_namespace(node.value):
            text = _fold(node.slice, constants)
            if text is not None:
                for what in _attribute(text, defined, False, f'"{text}" through vars'):
                    yield node.lineno, what
        elif isinstance(node, ast.Name) and node.id in INTERNALS - {"generators"}:
            yield node.lineno, f"uses {node.id}"
        elif isinstance(node, ast.ClassDef):
            yield from _base_private_names(node, table)


def scan() -> list[tuple[str, int, str]]:
    found: set[tuple[str, int, str]] = set()
    for path, tree in sources():
        for line, what in findings_in(path, tree, file_names(tree)):
            found.add((path, line, what))
    return sorted(found)


def test_no_internals_of_other_packages() -> None:
    findings = scan()
    new = [
        f"{path}:{line}: {what}" for path, line, what in findings if (path, what) not in REMAINING
    ]
    assert new == [], "internals of other packages:\n" + "\n".join(new)
    seen = {(path, what) for path, _, what in findings}
    gone = sorted(REMAINING - seen)
    assert gone == [], f"no longer found, remove from REMAINING: {gone}"


def _whats(source: str, defined: set[str] | None = None) -> list[str]:
    tree = ast.parse(source)
    names = file_names(tree) if defined is None else defined
    return sorted({what for _, what in findings_in("core/x.py", tree, names)})


def test_the_scan_finds_each_kind_of_internal() -> None:
    source = """
from psycopg._queries import PostgresQuery
import granian._internal
from psycopg import generators
import granian.server.mp
from django.core.handlers.exception import response_for_exception
from django.db.backends.postgresql.base import DatabaseWrapper
from django.core.cache.backends.redis import RedisCache

granian.server.mp.helper = None
DatabaseWrapper.vendor = "x"
setattr(granian.server, "Server", None)

class Wrapper(DatabaseWrapper):
    def _cursor(self, name=None):
        return None
    def _my_own(self):
        return self._meta, response._resource_closers, row.klass_info

class Cache(RedisCache):
    def client(self):
        self._mine = 1
        return self._class, self._mine

def f(qs):
    return qs.query.get_compiler("default").results_iter()
"""
    whats = _whats(source, {"_my_own", "_mine", "_class"})
    assert "imports from psycopg._queries" in whats
    assert "imports psycopg._queries.PostgresQuery" in whats
    assert "imports granian._internal" in whats
    assert "imports psycopg.generators" in whats
    assert "imports django.core.handlers.exception.response_for_exception" in whats
    assert "assigns granian.server.mp.helper (another package's)" in whats
    assert "assigns DatabaseWrapper.vendor (another package's)" in whats
    assert "sets an attribute of granian.server (another package's)" in whats
    assert "overrides django's BaseDatabaseWrapper._cursor" in whats
    assert "uses ._resource_closers (not defined in this file)" in whats
    assert "uses django's RedisCache._class" in whats
    assert not any("._mine" in w for w in whats)
    assert "uses .klass_info" in whats
    assert "uses .get_compiler" in whats and "uses .results_iter" in whats
    assert not any("_meta" in w or "_my_own" in w for w in whats)


#: Each trick that once slipped past the scan, with what the scan must say of it.
TRICKS = {
    "getattr": ('getattr(qs, "_result_cache")', 'uses "_result_cache" through getattr'),
    "hasattr": ('hasattr(conn, "_cursor")', 'uses "_cursor" through hasattr'),
    "setattr": ('setattr(conn, "_autocommit", True)', 'uses "_autocommit" through setattr'),
    "folded": ('getattr(qs, "_result" + f"_{\'cache\'}")', 'uses "_result_cache" through getattr'),
    "constant": ('NAME = "_cursor"\ngetattr(conn, NAME)', 'uses "_cursor" through getattr'),
    "vars": ('vars(qs)["_result_cache"]', 'uses "_result_cache" through vars'),
    "vars.get": ('vars(qs).get("_result_cache")', 'uses "_result_cache" through vars'),
    "__dict__": ('qs.__dict__["_prefetch_done"]', 'uses "_prefetch_done" through vars'),
    "attrgetter": (
        'import operator\noperator.attrgetter("query._filtered_relations")(qs)',
        'uses "_filtered_relations" through attrgetter',
    ),
    "methodcaller": (
        'from operator import methodcaller\nmethodcaller("_clone")(qs)',
        'uses "_clone" through methodcaller',
    ),
    "__getattribute__": (
        'object.__getattribute__(qs, "_hints")',
        'uses "_hints" through __getattribute__',
    ),
    "import_module": (
        'import importlib\nimportlib.import_module("psycopg.generators")',
        "imports psycopg.generators (dynamically)",
    ),
    "__import__": ('__import__("psycopg._encodings")', "imports psycopg._encodings (dynamically)"),
    "fromlist": (
        '__import__("psycopg", fromlist=["generators"])',
        "imports psycopg.generators (dynamically)",
    ),
    "import_string": (
        "from django.utils.module_loading import import_string\n"
        'import_string("django.db.backends.postgresql.base.TIMESTAMPTZ_OID")',
        "imports django.db.backends.postgresql.base.TIMESTAMPTZ_OID (dynamically)",
    ),
    "aliased base": (
        "from django.db.backends.postgresql.base import DatabaseWrapper\n"
        "Base = DatabaseWrapper\nOther = Base\n"
        "class W(Other):\n    def _cursor(self, name=None):\n        return None",
        "overrides django's BaseDatabaseWrapper._cursor",
    ),
    "aliased module": (
        "from django.db.backends.postgresql import base\nWrapper = base.DatabaseWrapper\n"
        "class W(Wrapper):\n    def _cursor(self, name=None):\n        return None",
        "overrides django's BaseDatabaseWrapper._cursor",
    ),
    "own name colliding": (
        "def _clone(x):\n    return x\ndef f(qs):\n    return qs._clone()",
        "uses ._clone (a private name of a dependency, not through self)",
    ),
    "another file's name": (
        "def f(qs):\n    return qs._my_project_helper",
        "uses ._my_project_helper (not defined in this file)",
    ),
}
#: The undocumented names without an underscore, each as the project once used it.
REFUSED_USES = {
    "atomic_blocks": "connection.atomic_blocks",
    "savepoint_ids": "connection.savepoint_ids",
    "needs_rollback": "connection.needs_rollback = True",
    "run_on_commit": "connection.run_on_commit.clear()",
    "run_and_clear_commit_hooks": "connection.run_and_clear_commit_hooks()",
    "execute_wrappers": "connection.execute_wrappers",
    "validate_no_broken_transaction": "connection.validate_no_broken_transaction()",
    "close_if_health_check_failed": "connection.close_if_health_check_failed()",
    "queries_log": "connection.queries_log.append(entry)",
    "error_from_result": "errors.error_from_result(result, encoding='utf-8')",
    "set_pgresult": "transformer.set_pgresult(result)",
    "load_rows": "transformer.load_rows(0, 1, tuple)",
    "dump_sequence": "transformer.dump_sequence(params, formats)",
}


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_the_scan_sees_through_each_trick(trick: str) -> None:
    source, expected = TRICKS[trick]
    whats = _whats(source)
    assert any(what.startswith(expected) for what in whats), whats


@pytest.mark.parametrize("name", sorted(REFUSED_USES))
def test_the_scan_refuses_each_undocumented_public_name(name: str) -> None:
    whats = _whats(REFUSED_USES[name])
    assert any(what.startswith(f"uses .{name} (") for what in whats), whats
    assert any(name in what for what in _whats(f'getattr(connection, "{name}")'))


def test_the_scan_refuses_the_connection_wrapper_overrides_and_imports() -> None:
    source = """
from django.db.backends.postgresql.base import DatabaseWrapper, ServerBindingCursor
from django.db.backends.postgresql.base import TIMESTAMPTZ_OID

class W(DatabaseWrapper):
    def create_cursor(self, name=None):
        return None
    def is_usable(self):
        return True
    def run_and_clear_commit_hooks(self):
        return None

class C(ServerBindingCursor):
    pass

def f(raw):
    with raw.lock:
        return TIMESTAMPTZ_OID
"""
    whats = _whats(source)
    assert "overrides django's DatabaseWrapper.create_cursor" in whats
    assert "overrides django's DatabaseWrapper.is_usable" in whats
    assert "overrides django's BaseDatabaseWrapper.run_and_clear_commit_hooks" in whats
    assert "imports django.db.backends.postgresql.base.ServerBindingCursor" in whats
    assert "imports django.db.backends.postgresql.base.TIMESTAMPTZ_OID" in whats
    assert "subclasses django's ServerBindingCursor" in whats
    assert "uses .lock (psycopg's connection lock is undocumented)" in whats


def test_the_scan_leaves_the_documented_and_the_files_own_names_alone() -> None:
    source = """
import redis
from django.db import connection, transaction

class Store:
    _cache: dict = {}
    def _load_rows(self):
        return self._cache, self._load_rows, getattr(self, "_cache")

def f(client: redis.Redis):
    with transaction.atomic(durable=True), client.lock("k"):
        transaction.on_commit(print)
        return connection.queries, Store()._load_rows(), obj._meta, getattr(obj, "name")
"""
    assert _whats(source) == []
