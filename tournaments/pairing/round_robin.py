"""Round-robin schedules for tables of 2 to k seats."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.pairing.types import PlayerId, Round


def round_robin(players: Sequence[PlayerId], seats: int, *, double: bool = False) -> list[Round]:
    """Every round of a round robin of ``players`` at tables of ``seats``.

    Two seats: the circle method, with a bye for an odd count; every pair meets exactly once.
    More seats: every pair shares a table as evenly as the numbers allow. ``double`` plays the
    schedule twice, the second time with the seat order reversed.
    """
    raise NotImplementedError
