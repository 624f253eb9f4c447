"""A player halves their own clock's bank before their first move (an arena's berserk,
tournaments/services/arena_berserk.py): what they keep is half of what their clock holds now;
byo-yomi periods stay. Only their own seat, only before they moved."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.utils import timezone

from accounts.models import User
from games import events
from games.models import Match, MatchEvent
from games.services.clock_changes import deadline_refresh
from games.services.unit_of_work import match_change
from games.time_controls import iso, left_at, running, time_control_of

#: The clocks whose bank can be halved: per-step clocks refill every step.
HALVABLE = ("fischer", "byoyomi")


def own_bank_halve(*, match_id: uuid.UUID | str, user: User, now: datetime | None = None) -> bool:
    """Halve ``user``'s bank in the match; False (nothing changed) when the match is not
    running, they hold no seat, its clock cannot be halved, or they have moved already."""
    with match_change(match_id, now=now or timezone.now()) as tx:
        match = tx.match
        seat = tx.seat_of(user.pk)
        tc = time_control_of(match)
        if match.status != Match.Status.ACTIVE or seat is None or seat.forfeited:
            return False
        if tc is None or tc.kind not in HALVABLE or match.clocks is None:
            return False
        moved = MatchEvent.objects.filter(
            match=match, type=events.MOVE_SUBMITTED.name, data__seat=seat.index
        ).exists()
        if moved or match.submitted_mask >> seat.index & 1:
            return False
        clocks = list(match.clocks)
        clock = clocks[seat.index]
        bank, periods = left_at(tc, clock, tx.now)
        half = bank // 2
        if running(clock):
            clocks[seat.index] = {**clock, "bank": half, "periods": periods, "since": iso(tx.now)}
        elif clock["stop"] is not None:
            clocks[seat.index] = {**clock, "stop": [half, periods]}
        else:
            clocks[seat.index] = {**clock, "bank": half}
        match.clocks = clocks
        deadline_refresh(tx)
        return True
