"""Every API module takes the adapters' kit (``core.api``, ``accounts.requester``) instead of
declaring its own copy or borrowing another view module's private helpers; the match
presenters shape what the selectors read without a query of their own."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KIT = {"core/api/input.py", "core/api/schema.py", "accounts/requester.py"}
#: What the kit declares once: a module defining one of these again has its own copy.
KIT_NAMES = {"requester", "_input", "_user", "validated", "PROBLEM", "IDEMPOTENCY_HEADER"}


def api_modules() -> list[Path]:
    found = [*ROOT.glob("*/api.py"), *ROOT.glob("*/api/*.py")]
    return sorted(
        path
        for path in found
        if path.relative_to(ROOT).parts[0] not in {"tests", "core"}  # core/api: the kit
    )


def test_api_modules_exist() -> None:
    assert len(api_modules()) >= 15


def test_no_api_module_declares_the_kit_again() -> None:
    copies = []
    for path in api_modules():
        tree = ast.parse(path.read_text())
        for node in tree.body:
            names = (
                [node.name]
                if isinstance(node, ast.FunctionDef)
                else [t.id for t in node.targets if isinstance(t, ast.Name)]
                if isinstance(node, ast.Assign)
                else []
            )
            copies += [f"{path.relative_to(ROOT)}: {name}" for name in names if name in KIT_NAMES]
    assert copies == []


def test_no_module_borrows_a_private_name_of_another() -> None:
    borrowed = []
    for path in api_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                borrowed += [
                    f"{path.relative_to(ROOT)}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    assert borrowed == []


def test_the_serializer_is_run_in_one_place() -> None:
    runs = [
        str(path.relative_to(ROOT))
        for path in api_modules()
        if "is_valid(raise_exception=True)" in path.read_text()
    ]
    assert runs == []
    assert all((ROOT / path).exists() for path in KIT)


def test_presenters_write_no_query() -> None:
    """``games/services/presenters.py`` shapes what ``reads.py`` selected: no ORM, no SQL."""
    source = (ROOT / "games/services/presenters.py").read_text()
    tree = ast.parse(source)
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not any(module.startswith("django.db") for module in imported)
    assert ".objects" not in source and "cursor" not in source and "match_store" not in source
