"""Standings with tie-breaks, and the crosstable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.pairing.types import Entrant, Played, PlayerId


@dataclass(frozen=True)
class Standing:
    rank: int
    player: PlayerId
    score: float
    buchholz: float
    sonneborn_berger: float
    direct: float
    rating: float
    played: int
    byes: int
    active: bool


def standings(
    entrants: Sequence[Entrant], played: Sequence[Played], byes: Mapping[PlayerId, int]
) -> list[Standing]:
    """The ranking by score, then Buchholz, Sonneborn-Berger, direct encounter and rating."""
    raise NotImplementedError


def crosstable(
    entrants: Sequence[Entrant], played: Sequence[Played]
) -> dict[PlayerId, dict[PlayerId, list[float]]]:
    """Per player, per opponent: the points scored in each finished meeting, in round order."""
    raise NotImplementedError
