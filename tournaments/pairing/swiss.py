"""One Swiss round: players of equal or close scores who have not met."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tournaments.pairing.types import Entrant, Played, PlayerId, Round


def swiss_round(
    entrants: Sequence[Entrant],
    played: Sequence[Played],
    byes: Mapping[PlayerId, int],
    *,
    seats: int,
    round_number: int,
) -> Round:
    """The pairing of round ``round_number`` from the finished matches and byes so far.

    Only active entrants are paired; the same input always gives the same round.
    """
    raise NotImplementedError
