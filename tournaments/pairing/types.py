"""The values the pairing works on: entrants, tables, rounds and finished matches."""

from __future__ import annotations

from dataclasses import dataclass

PlayerId = int


@dataclass(frozen=True)
class Entrant:
    """One registered player as the pairing sees them."""

    id: PlayerId
    # The player's rating ordinal for the game at registration: seeding and the last tie-break.
    rating: float
    # False: withdrew or was disqualified, never paired again.
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
    """One finished match; unfinished ones are never passed in."""

    round: int  # 1-based
    players: tuple[PlayerId, ...]  # seat order
    # Groups of seat indices, best first, as in a match's result["ranking"].
    ranking: tuple[tuple[int, ...], ...]
    # Players who lost by forfeit or withdrawal (for exports and markers).
    forfeited: tuple[PlayerId, ...] = ()
