"""What a finished table is worth to each of its players.

A player scores the share of the other players at the table they finished ahead of, a tie
counting half: in [0, 1] whatever the table's size, so tables of different sizes weigh the
same. Two seats: a win 1, a draw 0.5, a loss 0. Four seats: 1, 2/3, 1/3, 0 (two tied first:
5/6 each).
"""

from __future__ import annotations

from tournaments.pairing.types import Played, PlayerId

#: A bye is worth a win.
BYE_POINTS = 1.0


def places(played: Played) -> dict[PlayerId, int]:
    """Each player's group index in the ranking (0 = the best group)."""
    return {
        played.players[seat]: place for place, group in enumerate(played.ranking) for seat in group
    }


def pairwise(played: Played, player: PlayerId, opponent: PlayerId) -> float:
    """What ``player`` scored against ``opponent`` at this table: 1 ahead, 0.5 level, 0 behind."""
    place = places(played)
    mine, theirs = place.get(player), place.get(opponent)
    if mine is None or theirs is None:
        return 0.5
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def table_points(played: Played) -> dict[PlayerId, float]:
    others = len(played.players) - 1
    if others < 1:
        return {player: 0.0 for player in played.players}
    return {
        player: sum(pairwise(played, player, other) for other in played.players if other != player)
        / others
        for player in played.players
    }
