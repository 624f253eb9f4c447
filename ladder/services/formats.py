"""What a table is played under: a table size, an option object (as the engine fills it for
that size) and a time control. Two entrants can meet only in a format both declared."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from games.catalog import get_engine
from ladder.models import LadderEntry


@dataclass(frozen=True)
class Format:
    seats: int
    #: Canonical JSON of the filled options and of the time control (hashable, ordered).
    options: str
    time_control: str

    def options_value(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.options)
        return value

    def time_control_value(self) -> dict[str, Any] | None:
        value: dict[str, Any] | None = json.loads(self.time_control)
        return value


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def formats_of(entry: LadderEntry) -> set[Format]:
    """Every format ``entry`` accepts (the options filled by its engine: ``{}`` and the
    defaults spelled out are one format)."""
    engine = get_engine(entry.game)
    if engine is None:
        return set()
    found: set[Format] = set()
    for seats in entry.seats:
        for options in entry.options:
            filled = _canonical(engine.validate_options(options, seats))
            for control in entry.time_controls:
                found.add(Format(seats, filled, _canonical(control)))
    return found
