"""Every row lock of the tournaments app.

A tournament's changes (a registration, a round's end, an organiser's action) lock its row
first and only then, through games' services, one match at a time: a match change never locks
a tournament row, so the two orders cannot cross.
"""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError

from core.errors import NotFound
from tournaments.models import Tournament


def tournament_lock(tournament_id: uuid.UUID | str) -> Tournament:
    """The tournament row, locked until the transaction ends (call inside ``atomic``)."""
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except (Tournament.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("No such tournament.") from exc


def tournament_lock_try(tournament_id: uuid.UUID | str) -> Tournament | None:
    """The tournament row, locked, or None at once when another transaction holds its lock
    (or it does not exist): for periodic work that the lock's holder is doing anyway."""
    try:
        return (
            Tournament.objects.select_for_update(skip_locked=True).filter(pk=tournament_id).first()
        )
    except (ValueError, TypeError, ValidationError):
        return None
