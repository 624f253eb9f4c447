"""The values the pairing functions take and return."""

from __future__ import annotations

from dataclasses import dataclass

PlayerId = int


@dataclass(frozen=True)
class Entrant:
    """One registered player as the pairing sees them."""

    id: PlayerId
    #: The player's rating ordinal for the game at registration: seeding and the last tie-break.
    rating: float
    #: False once the player withdrew or was disqualified: never paired again.
    active: bool = True


@dataclass(frozen=True)
class Table:
    """One match of a round: its players in seat order (seat 0 first)."""

    players: tuple[PlayerId, ...]


@dataclass(frozen=True)
class Round:
    tables: tuple[Table, ...]
    byes: tuple[PlayerId, ...] = ()


@dataclass(frozen=True)
class Played:
    """One finished match (unfinished ones are never passed in)."""

    #: 1-based.
    round: int
    #: Seat order.
    players: tuple[PlayerId, ...]
    #: Groups of seat indices, best first, as games records a result (``Match.result["ranking"]``).
    ranking: tuple[tuple[int, ...], ...]
    #: Players who lost by forfeit or withdrawal (exports and markers only).
    forfeited: tuple[PlayerId, ...] = ()
