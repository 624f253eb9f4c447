"""Winners and ranking from per-seat sort keys.

Ranking convention (``Outcome.ranking``): a tuple of groups, best first; seats in a group are
tied and listed in seat order. Forfeited seats are never winners and always form the last
group, whatever they scored.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

SortKey = tuple[int, ...]


def _active(count: int, forfeited: Collection[int]) -> list[int]:
    return [seat for seat in range(count) if seat not in forfeited]


def top_seats(keys: Sequence[SortKey], forfeited: Collection[int] = ()) -> tuple[int, ...]:
    """Every non-forfeited seat holding the best key (a shared win when several do)."""
    active = _active(len(keys), forfeited)
    if not active:
        return ()
    best = max(keys[seat] for seat in active)
    return tuple(seat for seat in active if keys[seat] == best)


def unique_top_seat(totals: Sequence[int], forfeited: Collection[int] = ()) -> tuple[int, ...]:
    """The non-forfeited seat with the highest total that no other non-forfeited seat shares.

    Seats on equal totals cancel each other out; when every total is shared there is no
    winner (a draw) and the result is empty.
    """
    active = _active(len(totals), forfeited)
    counts: dict[int, int] = {}
    for seat in active:
        counts[totals[seat]] = counts.get(totals[seat], 0) + 1
    unique = [total for total, count in counts.items() if count == 1]
    if not unique:
        return ()
    best = max(unique)
    return tuple(seat for seat in active if totals[seat] == best)


def rank(
    keys: Sequence[SortKey],
    forfeited: Collection[int] = (),
    leaders: Sequence[int] = (),
) -> tuple[tuple[int, ...], ...]:
    """Groups of seats, best key first, equal keys grouped, forfeited seats last.

    ``leaders`` (winners decided by a rule other than the key, e.g. cancellation of equal
    totals) form the first group; the other seats follow by key.
    """
    active = [seat for seat in _active(len(keys), forfeited) if seat not in leaders]
    groups: list[tuple[int, ...]] = []
    if leaders:
        groups.append(tuple(sorted(leaders)))
    for key in sorted({keys[seat] for seat in active}, reverse=True):
        groups.append(tuple(seat for seat in active if keys[seat] == key))
    lost = tuple(seat for seat in range(len(keys)) if seat in forfeited)
    if lost:
        groups.append(lost)
    return tuple(groups)
