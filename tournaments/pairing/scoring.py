"""Points of one finished table."""

from __future__ import annotations

from tournaments.pairing.types import Played, PlayerId

# A bye scores as a win.
BYE_POINTS = 1.0


def table_points(played: Played) -> dict[PlayerId, float]:
    """Each player scores the share of the other players at the table they finished ahead of.

    A tie with another player counts half, so points lie in [0, 1]: at 2 seats a win is 1, a draw
    0.5 and a loss 0; at 4 seats the winner scores 1, the second 2/3, the third 1/3, the last 0.
    The points of a table add up to n/2 whatever the result.
    """
    raise NotImplementedError
