"""Single elimination: seeded by rating, the top places of each table go through."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tournaments.pairing.types import Entrant, Played, PlayerId, Round


def knockout_round(alive: Sequence[Entrant], *, seats: int) -> Round:
    """One knockout round seeded by rating (1 v n, 2 v n-1, ...); byes go to the top seeds."""
    raise NotImplementedError


def knockout_advancing(
    played: Played, *, seats: int, entrants: Mapping[PlayerId, Entrant], rule: str
) -> tuple[PlayerId, ...] | None:
    """Who goes through from one finished table.

    None when a draw at the cut needs a deciding match (rule ``replay``); with rule ``rating``
    the higher rating goes through.
    """
    raise NotImplementedError


def knockout_rounds_needed(players: int, seats: int) -> int:
    """How many rounds a knockout of ``players`` at tables of ``seats`` takes to one winner."""
    raise NotImplementedError
