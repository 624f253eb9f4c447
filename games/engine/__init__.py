"""Pure game rules behind one protocol, found by slug."""

from __future__ import annotations

from games.engine.protocol import Engine


def _registry() -> dict[str, Engine]:
    from games.engine import gops, hols_der_geier, memory, old_men_of_the_forest, xato

    engines: list[Engine] = [
        gops.ENGINE,
        hols_der_geier.ENGINE,
        old_men_of_the_forest.ENGINE,
        xato.ENGINE,
        memory.ENGINE,
    ]
    return {engine.slug: engine for engine in engines}


ENGINES: dict[str, Engine] = _registry()


def get_engine(slug: str) -> Engine | None:
    return ENGINES.get(slug)
