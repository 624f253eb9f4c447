"""Vacations: a bank of days per account that holds the player's correspondence clocks.

The bank accrues ``FACEDOWN_VACATION_DAYS_PER_YEAR`` up to ``FACEDOWN_VACATION_CAP_DAYS``
(counted lazily: seconds as of ``vacation_counted_at``, plus what accrued since). A vacation
is taken whole when it starts and what is left of it is given back when it ends early. It holds
the clocks of the player's seats in correspondence matches only (a day or more per step or per
bank); live matches never pause.

The user row is written first, in its own short transaction; then each match is changed in its
own (``vacation_apply``, idempotent: it makes each seat's ``held_until`` what the user row
says), so no transaction holds the user row while it waits for a match lock, and the deadline
sweep, which holds a match and then starts an automatic vacation, cannot deadlock with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import available_timezones

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.errors import VacationConflict, ValidationFailed
from games import events
from games.models import Match, Seat
from games.services.clocks import clocks_hold, clocks_release, time_control_of
from games.services.unit_of_work import MatchChange, match_change

DAY = 86_400


@dataclass(frozen=True)
class VacationState:
    bank_seconds: float
    started_at: datetime | None
    until: datetime | None
    auto_vacation: bool
    time_zone: str


def _rate() -> float:
    """Seconds of vacation earned per second."""
    return settings.FACEDOWN_VACATION_DAYS_PER_YEAR / 365.0


def bank_at(user: User, now: datetime) -> float:
    """The vacation seconds ``user`` has at ``now``."""
    counted = user.vacation_counted_at
    saved = user.vacation_seconds
    if counted is None:  # never counted: the allowance of a new account, from its creation
        counted, saved = user.date_joined, settings.FACEDOWN_VACATION_INITIAL_DAYS * DAY
    earned = max(0.0, (now - counted).total_seconds()) * _rate()
    return min(saved + earned, settings.FACEDOWN_VACATION_CAP_DAYS * DAY)


def on_vacation(user: User, now: datetime) -> bool:
    return user.vacation_until is not None and user.vacation_until > now


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


def vacation_settings(
    *, user: User, auto_vacation: bool | None = None, time_zone: str | None = None
) -> User:
    """Opt in or out of automatic vacations; say where your weekends are (for matches that
    pause on weekends, from their next start: running matches keep the zone they started
    with)."""
    fields = []
    if auto_vacation is not None:
        user.auto_vacation = auto_vacation
        fields.append("auto_vacation")
    if time_zone is not None:
        if time_zone not in available_timezones():
            raise ValidationFailed({"time_zone": ["An IANA time zone name, e.g. Europe/Berlin."]})
        user.time_zone = time_zone
        fields.append("time_zone")
    if fields:
        user.save(update_fields=fields)
    return user


def vacation_start(*, user: User, until: datetime, now: datetime | None = None) -> VacationState:
    """Go on vacation until ``until``: the days are taken from the bank now."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if on_vacation(locked, now):
            raise VacationConflict("You are on vacation already: end it first.")
        length = (until - now).total_seconds()
        bank = bank_at(locked, now)
        if length < 3600:
            raise ValidationFailed({"until": ["At least an hour from now."]})
        if length > bank:
            raise ValidationFailed({"until": [f"Your vacation bank holds {bank / DAY:.1f} days."]})
        _take(locked, now, until, bank - length)
    vacation_apply(user_id=user.pk, now=now)
    user.refresh_from_db()
    return vacation_state(user, now=now)


def _take(user: User, now: datetime, until: datetime, left: float) -> None:
    user.vacation_seconds = left
    user.vacation_counted_at = now
    user.vacation_started_at = now
    user.vacation_until = until
    user.save(
        update_fields=[
            "vacation_seconds",
            "vacation_counted_at",
            "vacation_started_at",
            "vacation_until",
        ]
    )


def vacation_end(*, user: User, now: datetime | None = None) -> VacationState:
    """Come back early: the days not used return to the bank (up to its cap)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if not on_vacation(locked, now):
            raise VacationConflict("You are not on vacation.")
        assert locked.vacation_until is not None
        unused = (locked.vacation_until - now).total_seconds()
        locked.vacation_seconds = min(
            bank_at(locked, now) + unused, settings.FACEDOWN_VACATION_CAP_DAYS * DAY
        )
        locked.vacation_counted_at = now
        locked.vacation_until = now
        locked.save(update_fields=["vacation_seconds", "vacation_counted_at", "vacation_until"])
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
    """The seat's clock ran out in a correspondence match: start its player's automatic
    vacation instead of timing it out, if they allow it and their bank holds a day. Holds
    this seat now; the player's other matches follow in a job after the commit."""
    match, now = tx.match, tx.now
    if seat.user_id is None or seat.controlled_by != Seat.Controller.PLAYER:
        return False
    if not correspondence(match):
        return False
    user = User.objects.select_for_update().get(pk=seat.user_id)
    if on_vacation(user, now):  # away already, and this match not yet told: hold it now
        assert user.vacation_until is not None
        return seat_hold(tx, user.pk, user.vacation_until)
    if not user.auto_vacation:
        return False
    bank = bank_at(user, now)
    if bank < DAY:
        return False
    length = min(bank, settings.FACEDOWN_AUTO_VACATION_DAYS * DAY)
    until = now + timedelta(seconds=length)
    _take(user, now, until, bank - length)
    seat_hold(tx, user.pk, until)
    tx.emit(events.AUTO_VACATION({"seat": seat.index, "until": events.timestamp(until) or ""}))
    return True
