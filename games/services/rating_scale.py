"""The rating a person reads: one mapping from openskill's values to a familiar number.

Openskill rates with ``mu`` and ``sigma`` (a new player: 25 and 25/3) and ranks by the
conservative ordinal ``mu - 3 sigma``, which starts at 0 and is negative for many players: read
as an insult, and meaningless beside other servers' numbers. Wherever a rating is shown to a
person or compared with one they typed (profiles, leaderboards, tournament entry conditions,
the ladder) it is ``1500 + 50 * ordinal``, rounded: a new player shows 1500, an ordinal of -2.8
shows 1360. A rating whose ``sigma`` is above ``PROVISIONAL_SIGMA`` is provisional (marked "?"
on pages): a new player's 8.33 is, and about a dozen rated matches bring it under. The API keeps
the raw ``mu``, ``sigma`` and ``ordinal`` beside the shown ``rating``.
"""

from __future__ import annotations

#: The shown rating of an ordinal of 0 (a new player).
BASE = 1500
#: Shown points per unit of the ordinal.
STEP = 50
#: Above this sigma a rating is provisional.
PROVISIONAL_SIGMA = 6.0


def shown_rating(mu: float, sigma: float) -> int:
    """The rating a person reads for openskill's ``mu`` and ``sigma``."""
    return from_ordinal(mu - 3 * sigma)


def from_ordinal(ordinal: float) -> int:
    """The shown rating of an ordinal (``mu - 3 sigma``)."""
    return round(BASE + STEP * ordinal)


def to_ordinal(shown: float) -> float:
    """The ordinal a shown rating stands for (a tournament's ``min_rating`` is typed shown)."""
    return (shown - BASE) / STEP


def provisional(sigma: float) -> bool:
    """Whether a rating is still too uncertain to read as settled."""
    return sigma > PROVISIONAL_SIGMA
