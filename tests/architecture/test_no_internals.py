"""No other package's internals in the application: a scan of its syntax trees.

The application packages may use only the public, documented API of their dependencies, so an
upgrade of Django, DRF, psycopg, granian or sentry-sdk breaks a test rather than production.
The scan reports, as ``path:line: what``:

- an imported underscore name or module path of another package (``from psycopg._queries
  import …``, ``import granian._internal``);
- an attribute ``x._name`` the project does not define itself anywhere (as a class, function,
  method, attribute or module-level name) and that is not a documented underscore API;
- an assignment (or ``setattr``) to an attribute of another package's module or class (a
  monkeypatch);
- a method ``_name`` of a subclass of another package's class that the base class defines (an
  override of a private method), and ``self._name`` in such a subclass where the base class
  defines or sets ``_name`` (its private state);
- the undocumented modules and ORM/handler internals named in ``INTERNALS``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "config",
    "core",
    "accounts",
    "games",
    "notify",
    "live",
    "social",
    "tournaments",
    "moderation",
    "observability",
    "web",
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


def project_names(trees: list[tuple[str, ast.Module]]) -> set[str]:
    """Every name the project defines itself: classes, functions and methods, module and class
    level names, attributes it assigns (``self._x = …``, ``request._x = …``; not those of
    another package's module, which would be a monkeypatch) and ``__slots__`` entries."""
    names: set[str] = set()
    for _, tree in trees:
        _, modules = _imported(tree)
        scopes: list[ast.Module | ast.ClassDef] = [tree]
        for node in ast.walk(tree):
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
                targets = (
                    statement.targets
                    if isinstance(statement, ast.Assign)
                    else [statement.target]
                    if isinstance(statement, ast.AnnAssign)
                    else []
                )
                for target in targets:
                    if isinstance(target, ast.Name):
                        names.add(target.id)
                        if target.id == "__slots__" and statement.value is not None:
                            names.update(
                                item.value
                                for item in ast.walk(statement.value)
                                if isinstance(item, ast.Constant) and isinstance(item.value, str)
                            )
    return names


def _imported(tree: ast.Module) -> tuple[dict[str, str], set[str]]:
    """What each imported name stands for (``name -> module.attr``), and the names bound to
    another package's module or object (``import x``, ``from x import y``): setting an
    attribute on one of those is a monkeypatch."""
    table: dict[str, str] = {}
    modules: set[str] = set()
    for node in ast.walk(tree):
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
    ``_name`` it overrides, and the private attributes ``self._name`` it reads or sets that
    the base defines or sets itself (a name the project defines elsewhere does not hide it)."""
    methods = {
        item.name: item.lineno
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _private(item.name)
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
    if not methods and not attributes:
        return
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
        for cls in resolved.__mro__:
            owner = getattr(cls, "__module__", "") or ""
            if _is_project(owner) or cls is object:
                continue
            package = owner.split(".")[0]
            for name, line in methods.items():
                if name in vars(cls):
                    yield line, f"overrides {package}'s {cls.__qualname__}.{name}"
            source = _source(cls)
            for name, line in attributes.items():
                if name in vars(cls) or f"self.{name}" in source:
                    yield line, f"uses {package}'s {cls.__qualname__}.{name}"


@cache
def _source(cls: type) -> str:
    try:
        return inspect.getsource(cls)
    except (OSError, TypeError):  # a class built in C
        return ""


def findings_in(path: str, tree: ast.Module, defined: set[str]) -> Iterator[tuple[int, str]]:
    table, modules = _imported(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _is_project(alias.name):
                    if any(_private(part) for part in alias.name.split(".")):
                        yield node.lineno, f"imports {alias.name}"
                    if alias.name.startswith("psycopg.generators"):
                        yield node.lineno, f"imports {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if _is_project(node.module) or node.module == "__future__":
                continue
            parts = node.module.split(".")
            if any(_private(part) for part in parts) or node.module.startswith(
                "psycopg.generators"
            ):
                yield node.lineno, f"imports from {node.module}"
            psycopg = node.module.split(".")[0] == "psycopg"
            for alias in node.names:
                internal = alias.name in INTERNALS and (alias.name != "generators" or psycopg)
                if _private(alias.name) or internal:
                    yield node.lineno, f"imports {node.module}.{alias.name}"
        elif isinstance(node, ast.Attribute):
            if _private(node.attr) and node.attr not in defined and node.attr not in DOCUMENTED:
                yield node.lineno, f"uses .{node.attr} (not defined by the project)"
            elif node.attr in INTERNALS and node.attr != "generators":
                yield node.lineno, f"uses .{node.attr}"
            elif node.attr == "generators" and _dotted(node) == "psycopg.generators":
                yield node.lineno, "uses psycopg.generators"
            if isinstance(node.ctx, ast.Store) and _root(node) in modules:
                yield node.lineno, f"assigns {_dotted(node)} (another package's)"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and _root(node.args[0]) in modules
        ):
            yield node.lineno, f"sets an attribute of {_dotted(node.args[0])} (another package's)"
        elif isinstance(node, ast.Name) and node.id in INTERNALS - {"generators"}:
            yield node.lineno, f"uses {node.id}"
        elif isinstance(node, ast.ClassDef):
            yield from _base_private_names(node, table)


def scan() -> list[tuple[str, int, str]]:
    trees = list(sources())
    defined = project_names(trees)
    found: set[tuple[str, int, str]] = set()
    for path, tree in trees:
        for line, what in findings_in(path, tree, defined):
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
    tree = ast.parse(source)
    found = sorted(set(findings_in("core/x.py", tree, {"_my_own", "_mine", "_class"})))
    whats = [what for _, what in found]
    assert "imports from psycopg._queries" in whats
    assert "imports psycopg._queries.PostgresQuery" in whats
    assert "imports granian._internal" in whats
    assert "imports psycopg.generators" in whats
    assert "imports django.core.handlers.exception.response_for_exception" in whats
    assert "assigns granian.server.mp.helper (another package's)" in whats
    assert "assigns DatabaseWrapper.vendor (another package's)" in whats
    assert "sets an attribute of granian.server (another package's)" in whats
    assert "overrides django's BaseDatabaseWrapper._cursor" in whats
    assert "uses ._resource_closers (not defined by the project)" in whats
    assert "uses django's RedisCache._class" in whats
    assert not any("._mine" in w for w in whats)
    assert "uses .klass_info" in whats
    assert "uses .get_compiler" in whats and "uses .results_iter" in whats
    assert not any("_meta" in w or "_my_own" in w for w in whats)
