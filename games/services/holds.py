"""Pauses a match's tournament sets: its organiser pauses the tournament and every match of it
still running stops its clocks, without the players' agreement a match's own pause needs
(games/services/proposals.py). A hold lasts at most ``HOLD_LIMIT``: a tournament paused longer
sees its matches' clocks count again after it."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.utils import timezone

from games import events
from games.models import Match
from games.services.clock_changes import pause_begin, pause_end
from games.services.unit_of_work import match_change
from games.time_controls import iso, time_control_of

HOLD_LIMIT = timedelta(days=14)


def match_hold(*, match_id: uuid.UUID | str, now: datetime | None = None) -> bool:
    """Pause an active timed match for up to ``HOLD_LIMIT``; False when there is nothing to
    pause (the match is over, or untimed)."""
    with match_change(match_id, now=now or timezone.now()) as tx:
        if tx.match.status != Match.Status.ACTIVE or time_control_of(tx.match) is None:
            return False
        until = tx.now + HOLD_LIMIT
        pause_begin(tx, until)
        tx.emit(events.MATCH_PAUSED({"proposal": None, "until": iso(until)}))
        return True


def match_hold_end(*, match_id: uuid.UUID | str, now: datetime | None = None) -> bool:
    """End a pause still running; False when there is none (it ran out, or the match is over)."""
    with match_change(match_id, now=now or timezone.now()) as tx:
        paused_until = tx.match.paused_until
        if tx.match.status != Match.Status.ACTIVE or paused_until is None:
            return False
        if paused_until <= tx.now:
            return False
        pause_end(tx)
        tx.emit(events.MATCH_RESUMED({"was_until": iso(paused_until)}))
        return True
