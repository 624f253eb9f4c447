"""Every row lock of the ladder.

A pairing wave locks every active entry (in id order) before it reads who is free, so two
waves run one after the other and never seat an entrant past its cap; recording a finished
match locks its ``LadderMatch`` row and then its entries, in id order. A match change never
locks a ladder row, so the orders cannot cross.
"""

from __future__ import annotations

from django.db.models import QuerySet

from ladder.models import LadderEntry


def active_entries_lock() -> list[LadderEntry]:
    """Every active entry with its user, locked until the transaction ends."""
    rows: QuerySet[LadderEntry] = (
        LadderEntry.objects.select_for_update(of=("self",))
        .filter(status=LadderEntry.Status.ACTIVE)
        .select_related("user")
        .order_by("pk")
    )
    return list(rows)


def entries_lock(ids: list[int]) -> dict[int, LadderEntry]:
    rows = LadderEntry.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    return {row.pk: row for row in rows}
