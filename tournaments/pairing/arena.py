"""Arena points: the table share scaled to whole numbers, the streak bonus and berserk.

- A table's points are ``scoring.table_points`` times ``2 x (seats - 1)``: at 2 seats a win is 2,
  a draw 1, a loss 0; at 4 seats the places score 6, 4, 2, 0 (a tie shares, still whole).
- A win is finishing alone first. With streaks on, a player whose last two results were wins is
  "on fire": their next win scores double, and so does every win after it until a result that
  is not a win.
- A player who berserked a table and wins it scores one point more (not doubled).

Results are fed in the order the tables finished; the state per player is their points and
their wins in a row.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from tournaments.pairing.scoring import table_points
from tournaments.pairing.types import Played, PlayerId

#: Wins in a row after which wins score double.
FIRE_AFTER = 2
BERSERK_BONUS = 1


@dataclass(frozen=True)
class ArenaScore:
    points: int = 0
    wins_in_row: int = 0
    played: int = 0

    @property
    def on_fire(self) -> bool:
        return self.wins_in_row >= FIRE_AFTER


def scale(seats: int) -> int:
    return 2 * max(seats - 1, 1)


def winner_of(played: Played) -> PlayerId | None:
    """The player who finished alone first, if one did."""
    if not played.ranking or len(played.ranking[0]) != 1:
        return None
    return played.players[played.ranking[0][0]]


def table_scored(
    played: Played,
    before: dict[PlayerId, ArenaScore],
    *,
    streaks: bool,
    berserked: Collection[PlayerId] = (),
) -> dict[PlayerId, ArenaScore]:
    """Each player's score after this table, from their score before it."""
    shares = table_points(played)
    factor = scale(len(played.players))
    winner = winner_of(played)
    after: dict[PlayerId, ArenaScore] = {}
    for player in played.players:
        prior = before.get(player, ArenaScore())
        points = round(shares[player] * factor)
        if player == winner:
            if streaks and prior.on_fire:
                points *= 2
            if player in berserked:
                points += BERSERK_BONUS
            row = prior.wins_in_row + 1
        else:
            row = 0
        after[player] = ArenaScore(prior.points + points, row, prior.played + 1)
    return after


def arena_scores(
    tables: Iterable[tuple[Played, Collection[PlayerId]]], *, streaks: bool
) -> dict[PlayerId, ArenaScore]:
    """Every player's score after ``tables`` (each with who berserked it), in finishing order."""
    scores: dict[PlayerId, ArenaScore] = {}
    for played, berserked in tables:
        scores.update(table_scored(played, scores, streaks=streaks, berserked=berserked))
    return scores
