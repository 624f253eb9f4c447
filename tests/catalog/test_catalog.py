"""The catalogue: one well-formed record per game, and the layers below it stay pure: of the
project and its frameworks, the engine imports only itself, the bots only themselves and the
engine (so neither imports the catalogue, not even inside a function)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cardgames.bots.base import BaseBot
from games.catalog import GAMES, RECORDS, bots_of, get_bot, get_engine, get_record

ROOT = Path(__file__).resolve().parents[2]


def test_one_record_per_game() -> None:
    slugs = [record.slug for record in RECORDS]
    assert len(set(slugs)) == len(slugs) == len(GAMES)
    assert slugs == ["gops", "hols-der-geier", "old-men-of-the-forest", "xato", "memory"]


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_a_record_holds_its_engine_bots_and_hints(slug: str) -> None:
    record = GAMES[slug]
    assert get_record(slug) is record and get_engine(slug) is record.engine
    assert bots_of(slug) is record.bots
    assert {"random", "greedy"} <= set(record.bots)
    for name, bot in record.bots.items():
        assert isinstance(bot, BaseBot) and bot.name == name
        assert get_bot(slug, name) is bot
        assert bot.options_schema["type"] == "object"
        assert all("default" in prop for prop in bot.options_schema["properties"].values())
    hints = record.conformance
    assert hints.playouts > 0 and hints.redrawn_one_in >= 2
    assert set(hints.option_choices) <= set(record.engine.options_schema["properties"])
    assert record.web.layout in ("cards", "generic")
    assert record.web.layout == "cards" or record.web.prize_faces == "plain"


def test_unknown_games_and_bots() -> None:
    assert get_engine("chess") is None and get_record("chess") is None
    assert bots_of("chess") == {} and get_bot("chess", "random") is None
    assert get_bot("gops", "nobody") is None


def imported_modules(package: str) -> set[tuple[str, str]]:
    """(file, module) for every import in the dotted ``package``, inside functions too."""
    found: set[tuple[str, str]] = set()
    for path in sorted(ROOT.joinpath(*package.split(".")).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update((path.name, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path}: relative import"
                found.add((path.name, node.module or ""))
    return found


#: The project's own packages and the frameworks the pure layers must not reach.
GUARDED = {
    "cardgames",
    "games",
    "core",
    "accounts",
    "web",
    "config",
    "django",
    "rest_framework",
    "celery",
}


def outside(modules: set[tuple[str, str]], allowed: tuple[str, ...]) -> set[tuple[str, str]]:
    return {
        (file, module)
        for file, module in modules
        if module.split(".")[0] in GUARDED
        and not any(module == a or module.startswith(a + ".") for a in allowed)
    }


def test_the_engine_imports_only_itself() -> None:
    assert outside(imported_modules("cardgames.engines"), ("cardgames.engines",)) == set()


def test_the_bots_import_only_themselves_and_the_engine() -> None:
    assert (
        outside(imported_modules("cardgames.bots"), ("cardgames.bots", "cardgames.engines"))
        == set()
    )
