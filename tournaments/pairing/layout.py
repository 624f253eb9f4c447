"""How many tables of which sizes a round has."""

from __future__ import annotations


def table_sizes(players: int, seats: int, min_seats: int = 2) -> tuple[list[int], int]:
    """Table sizes (largest first, differing by at most one, from ``min_seats`` to ``seats``) and
    how many players must sit out (byes) for that: the fewest possible.

    Two seats and an odd count give one bye; 5 players at 4 seats give tables of 3 and 2.
    """
    for byes in range(players + 1):
        playing = players - byes
        if playing == 0:
            break
        tables = -(-playing // seats)
        small = playing // tables
        if small >= min_seats:
            large = playing - small * tables
            return [small + 1] * large + [small] * (tables - large), byes
    return [], players
