# LOCAL SCRATCH (uncommitted)
from __future__ import annotations

from dataclasses import dataclass

PlayerId = int


@dataclass(frozen=True)
class Entrant:
    id: PlayerId
    rating: float
    active: bool = True


@dataclass(frozen=True)
class Table:
    players: tuple[PlayerId, ...]


@dataclass(frozen=True)
class Round:
    tables: tuple[Table, ...]
    byes: tuple[PlayerId, ...] = ()


@dataclass(frozen=True)
class Played:
    round: int
    players: tuple[PlayerId, ...]
    ranking: tuple[tuple[int, ...], ...]
    forfeited: tuple[PlayerId, ...] = ()
