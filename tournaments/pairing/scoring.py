"""Points of one finished table."""

from __future__ import annotations

from tournaments.pairing.types import Played, PlayerId

# A bye scores as a win.
BYE_POINTS = 1.0


def table_points(played: Played) -> dict[PlayerId, float]:
    """Each player scores the share of the other players at the table they finished ahead of.

    A tie with another player counts half, so points lie in [0, 1]: at 2 seats a win is 1, a draw
    0.5 and a loss 0; at 4 seats the winner scores 1, the second 2/3, the third 1/3, the last 0.
    """
    others = len(played.players) - 1
    if others < 1:
        return {player: 0.0 for player in played.players}
    points: dict[PlayerId, float] = {}
    behind = len(played.players)
    for group in played.ranking:
        behind -= len(group)
        for seat in group:
            points[played.players[seat]] = (behind + (len(group) - 1) / 2) / others
    return points


def head_to_head(played: Played) -> dict[tuple[PlayerId, PlayerId], float]:
    """Per ordered pair of players at the table: 1 when the first finished ahead, 0.5 level, 0 not.

    At 2 seats this is the table's points; at more seats it is what the crosstable, the direct
    encounter and Sonneborn-Berger count per opponent.
    """
    place = {played.players[seat]: i for i, group in enumerate(played.ranking) for seat in group}
    result: dict[tuple[PlayerId, PlayerId], float] = {}
    for a in played.players:
        for b in played.players:
            if a != b:
                pa, pb = place[a], place[b]
                result[a, b] = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
    return result
