"""Vacations hold a player's correspondence clocks (the bank itself: accounts/vacation_bank.py).

A vacation holds the clocks of the player's seats in correspondence matches only (a day or more
per step or per bank); live matches never pause. The user row is written first, in its own short
transaction; then each match is changed in its own (``vacation_apply``, idempotent: it makes each
seat's ``held_until`` what the user row says), so no transaction holds the user row while it
waits for a match lock, and the deadline sweep, which holds a match and then starts an automatic
vacation, cannot deadlock with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from accounts.models import User
from accounts.vacation_bank import (
    bank_at,
    on_vacation,
    vacation_give_back,
    vacation_take,
    vacation_take_automatic,
)
from games import events
from games.models import Match, Seat
from games.services.clock_changes import clocks_hold, clocks_release
from games.services.unit_of_work import MatchChange, match_change
from games.time_controls import time_control_of


@dataclass(frozen=True)
class VacationState:
    bank_seconds: float
    started_at: datetime | None
    until: datetime | None
    auto_vacation: bool
    time_zone: str


def vacation_state(user: User, *, now: datetime | None = None) -> VacationState:
    now = now or timezone.now()
    away = on_vacation(user, now)
    return VacationState(
        bank_seconds=round(bank_at(user, now), 3),
        started_at=user.vacation_started_at if away else None,
        until=user.vacation_until if away else None,
        auto_vacation=user.auto_vacation,
        time_zone=user.time_zone,
    )


def vacation_start(*, user: User, until: datetime, now: datetime | None = None) -> VacationState:
    """Go on vacation until ``until``: the time is taken from the bank now, the clocks held."""
    now = now or timezone.now()
    vacation_take(user_id=user.pk, until=until, now=now)
    vacation_apply(user_id=user.pk, now=now)
    user.refresh_from_db()
    return vacation_state(user, now=now)


def vacation_end(*, user: User, now: datetime | None = None) -> VacationState:
    """Come back early: the unused time returns to the bank, the clocks count from now."""
    now = now or timezone.now()
    vacation_give_back(user_id=user.pk, now=now)
    vacation_apply(user_id=user.pk, now=now)
    user.refresh_from_db()
    return vacation_state(user, now=now)


def correspondence(match: Match) -> bool:
    tc = time_control_of(match)
    return tc is not None and tc.correspondence


def vacation_apply(*, user_id: int, now: datetime | None = None) -> int:
    """Make every active correspondence seat of the user held as their vacation says (one
    change per match that differs); returns how many matches changed."""
    now = now or timezone.now()
    user = User.objects.get(pk=user_id)
    until = user.vacation_until if on_vacation(user, now) else None
    seats = Seat.objects.filter(
        user_id=user_id, forfeited=False, match__status=Match.Status.ACTIVE
    ).values_list("match_id", "held_until")
    changed = 0
    for match_id, held in seats:
        if held == until or (held is not None and until is None and held <= now):
            continue
        with match_change(match_id, now=now) as tx:
            changed += seat_hold(tx, user_id, until)
    return changed


def seat_hold(tx: MatchChange, user_id: int, until: datetime | None) -> bool:
    """Hold (or, ``until`` None, release) the user's seat's clock in this match for a
    vacation, with a public event: opponents see "on vacation until …"."""
    seat = tx.seat_of(user_id)
    if (
        seat is None
        or seat.forfeited
        or tx.match.status != Match.Status.ACTIVE
        or not correspondence(tx.match)
        or seat.held_until == until
    ):
        return False
    seat.held_until = until
    if until is not None:
        clocks_hold(tx, until, seats=[seat.index])
    else:
        clocks_release(tx, seats=[seat.index])
    tx.emit(
        events.SEAT_VACATION({"seat": seat.index, "until": events.timestamp(until)}),
        step=tx.match.step,
    )
    return True


def auto_vacation_take(tx: MatchChange, seat: Seat) -> bool:
    """The seat's clock ran out in a correspondence match: hold it for its player's vacation
    instead of timing it out, if they are away already or an automatic vacation starts now.
    Holds this seat now; the player's other matches follow in a job after the commit."""
    if seat.user_id is None or seat.controlled_by != Seat.Controller.PLAYER:
        return False
    if not correspondence(tx.match):
        return False
    taken = vacation_take_automatic(user_id=seat.user_id, now=tx.now)
    if taken is None:
        return False
    until, started = taken
    held = seat_hold(tx, seat.user_id, until)
    if started:
        tx.emit(events.AUTO_VACATION({"seat": seat.index, "until": events.timestamp(until) or ""}))
    return held or started
