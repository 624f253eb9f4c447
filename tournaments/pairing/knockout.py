"""Single elimination, seeded by rating.

Two seats: the standard bracket. When the field is not a power of two, the top seeds get byes
into the second round; tables pair seed 1 with the lowest seed, 2 with the next lowest, and so on
(re-seeded each round by rating). The winner goes through.

k seats: tables of exactly k, seeded in a snake (seeds 1..t on tables 1..t, then t..1, ...), the
remainder (fewer than k) — the top seeds — get byes; the top half of each table (rounded down,
at least one) goes through. Once k or fewer are left, they play one final table.

A drawn cut (players tied across the last place that goes through): under ``replay`` nobody
goes through yet and the app starts a deciding match between the tied players; under
``rating`` the higher-rated go through (then the lower id).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tournaments.pairing.types import Entrant, Played, PlayerId, Round, Table


def _seeded(alive: Sequence[Entrant]) -> list[Entrant]:
    return sorted(alive, key=lambda e: (-e.rating, e.id))


def advancing_from(players: int, seats: int) -> int:
    """How many of a table of ``players`` go through."""
    return 1 if seats == 2 or players <= 2 else max(1, players // 2)


def knockout_round(alive: Sequence[Entrant], *, seats: int) -> Round:
    ids = [e.id for e in _seeded(alive)]
    n = len(ids)
    if n < 2:
        return Round((), tuple(ids))
    if n <= seats:
        return Round((Table(tuple(ids)),))
    if seats == 2:
        size = 1
        while size < n:
            size *= 2
        byes, rest = ids[: size - n], ids[size - n :]
        half = len(rest) // 2
        return Round(tuple(Table((rest[i], rest[-1 - i])) for i in range(half)), tuple(byes))
    count = n // seats
    byes, rest = ids[: n - count * seats], ids[n - count * seats :]
    tables: list[list[PlayerId]] = [[] for _ in range(count)]
    for k, player in enumerate(rest):
        lap, slot = divmod(k, count)
        tables[slot if lap % 2 == 0 else count - 1 - slot].append(player)
    return Round(tuple(Table(tuple(t)) for t in tables), tuple(byes))


def knockout_advancing(
    played: Played, *, seats: int, entrants: Mapping[PlayerId, Entrant], rule: str
) -> tuple[PlayerId, ...] | None:
    """Who goes through from one finished table; None when a drawn cut needs a deciding match."""
    wanted = advancing_from(len(played.players), seats)
    through: list[PlayerId] = []
    for group in played.ranking:
        players = [played.players[seat] for seat in group]
        if len(through) + len(players) <= wanted:
            through += players
            if len(through) == wanted:
                break
            continue
        if rule == "replay":
            return None
        best = sorted(players, key=lambda p: (-entrants[p].rating, p))
        through += best[: wanted - len(through)]
        break
    return tuple(through)


def knockout_rounds_needed(players: int, seats: int) -> int:
    """Rounds until one table decides the winner (deciding matches are part of their round)."""
    n, rounds = players, 0
    while n > 1:
        rounds += 1
        if n <= seats:
            break
        if seats == 2:
            size = 1
            while size < n:
                size *= 2
            n = size // 2
            continue
        count = n // seats
        n = count * advancing_from(seats, seats) + (n - count * seats)
    return rounds
