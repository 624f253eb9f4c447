"""Only the unit of work writes match rows; only ``games/locks.py`` locks them.

The match lock's statement is written in ``games/match_store.py`` (with the hot paths' other
SQL) and taken only through ``games/locks.py``. Every match change goes through
``games.services.unit_of_work.match_change``: a ``save()``, a queryset
``update``/``delete``/``bulk_create`` or a ``select_for_update`` anywhere else in ``games/``
would be a second door.
"""

from __future__ import annotations

import ast
from pathlib import Path

GAMES = Path(__file__).resolve().parents[2] / "games"
#: The doors themselves, and the idempotency records (not match rows). ``services/archive.py``
#: moves a finished match's moves and events into its archive, under the match's lock: the
#: match is over, so no change can touch those rows any more, and the unit of work (which
#: collects changes to a live match) has nothing to add to a move of rows between tables.
ALLOWED = {
    "services/unit_of_work.py",
    "locks.py",
    "match_store.py",
    "services/idempotency.py",
    "services/archive.py",
}
ALWAYS_WRITES = {"save", "bulk_create", "bulk_update", "select_for_update"}
QUERYSET_WRITES = {"update", "delete", "create", "get_or_create", "update_or_create"}
MATCH_ROWS = ("Match.", "Seat.", "Move.", "MatchEvent.")


def writes_in(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name, receiver = node.func.attr, ast.unparse(node.func.value)
        queryset = receiver.startswith(MATCH_ROWS) and ".objects" in receiver
        if name in ALWAYS_WRITES or (name in QUERYSET_WRITES and queryset):
            found.append(f"line {node.lineno}: {receiver}.{name}(…)")
    return found


def test_no_write_or_lock_goes_around_the_unit_of_work() -> None:
    offenders = {}
    for path in sorted(GAMES.rglob("*.py")):
        name = path.relative_to(GAMES).as_posix()
        if name in ALLOWED or name.startswith("migrations/"):
            continue
        if found := writes_in(path.read_text()):
            offenders[name] = found
    assert offenders == {}


def test_the_scan_sees_a_write() -> None:
    assert writes_in("seat.save(update_fields=['forfeited'])") == ["line 1: seat.save(…)"]
    assert writes_in("Move.objects.filter(pk=1).update(payload=None)") == [
        "line 1: Move.objects.filter(pk=1).update(…)"
    ]
    assert writes_in("pending.update(fields)") == []
    assert writes_in("AccessToken.objects.get_or_create(user=user)") == []
