"""The ladder's part in closing and exporting an account (``accounts.hooks``): a closing
account leaves every ladder (its running ladder matches go on, as for any closing player's
matches); its export lists its entries with their ladder ratings."""

from __future__ import annotations

from django.utils import timezone

from accounts.models import User
from ladder.models import LadderEntry
from ladder.services.reads import entry_resource


def entries_leave(user: User) -> None:
    LadderEntry.objects.filter(user=user).exclude(status=LadderEntry.Status.LEFT).update(
        status=LadderEntry.Status.LEFT, left_at=timezone.now(), paused_reason="", paused_at=None
    )


def entries_export(user: User) -> dict[str, object]:
    rows = LadderEntry.objects.filter(user=user).select_related("user").order_by("game")
    return {"ladder_entries": [entry_resource(entry) for entry in rows]}
