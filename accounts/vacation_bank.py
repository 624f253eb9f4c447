"""The vacation bank of an account: what it holds, and taking or giving back its time.

The bank accrues ``FACEDOWN_VACATION_DAYS_PER_YEAR`` up to ``FACEDOWN_VACATION_CAP_DAYS``,
counted lazily: seconds saved as of ``vacation_counted_at``, plus what accrued since (a new
account: ``FACEDOWN_VACATION_INITIAL_DAYS`` from its creation). A vacation is taken whole when it
starts; what is left of it comes back when it ends early. Each function here writes the user
row alone, in its own short transaction (holding the matches is ``games``'s work, after it).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import available_timezones

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import VacationConflict, ValidationFailed

DAY = 86_400


def bank_at(user: User, now: datetime) -> float:
    """The vacation seconds ``user`` has at ``now``."""
    counted, saved = user.vacation_counted_at, user.vacation_seconds
    if counted is None:
        counted, saved = user.date_joined, settings.FACEDOWN_VACATION_INITIAL_DAYS * DAY
    earned = max(0.0, (now - counted).total_seconds()) * settings.FACEDOWN_VACATION_DAYS_PER_YEAR
    return min(saved + earned / 365.0, settings.FACEDOWN_VACATION_CAP_DAYS * DAY)


def on_vacation(user: User, now: datetime) -> bool:
    return user.vacation_until is not None and user.vacation_until > now


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


def vacation_take(*, user_id: int, until: datetime, now: datetime) -> None:
    """Start a vacation until ``until``, its time taken from the bank now."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user_id)
        if on_vacation(user, now):
            raise VacationConflict(gettext_noop("You are on vacation already: end it first."))
        length, bank = (until - now).total_seconds(), bank_at(user, now)
        if length < 3600:
            raise ValidationFailed({"until": [gettext_noop("At least an hour from now.")]})
        if length > bank:
            raise ValidationFailed(
                {"until": [gettext_noop("Your vacation bank holds less than that.")]}
            )
        _take(user, now, until, bank - length)


def vacation_give_back(*, user_id: int, now: datetime) -> None:
    """End the vacation now: its unused time returns to the bank (up to the cap)."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user_id)
        if not on_vacation(user, now):
            raise VacationConflict(gettext_noop("You are not on vacation."))
        assert user.vacation_until is not None
        unused = (user.vacation_until - now).total_seconds()
        cap = settings.FACEDOWN_VACATION_CAP_DAYS * DAY
        user.vacation_seconds = min(bank_at(user, now) + unused, cap)
        user.vacation_counted_at = now
        user.vacation_until = now
        user.save(update_fields=["vacation_seconds", "vacation_counted_at", "vacation_until"])


def vacation_take_automatic(*, user_id: int, now: datetime) -> tuple[datetime, bool] | None:
    """A correspondence clock of the user ran out: the end of the vacation that holds their
    clocks now, and whether it starts now (one already under way, or an automatic one of up to
    ``FACEDOWN_AUTO_VACATION_DAYS`` if they allow it and the bank holds a day), or None."""
    user = User.objects.select_for_update().get(pk=user_id)
    if on_vacation(user, now):
        assert user.vacation_until is not None
        return user.vacation_until, False
    bank = bank_at(user, now)
    if not user.auto_vacation or bank < DAY:
        return None
    until = now + timedelta(seconds=min(bank, settings.FACEDOWN_AUTO_VACATION_DAYS * DAY))
    _take(user, now, until, bank - (until - now).total_seconds())
    return until, True


#: Files of the time zone database that are no zone's name: ``localtime`` is the machine's own
#: zone (whatever the server runs in), ``posixrules`` a template.
NOT_ZONE_NAMES = frozenset({"localtime", "posixrules"})


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
        if time_zone in NOT_ZONE_NAMES or time_zone not in available_timezones():
            raise ValidationFailed(
                {"time_zone": [gettext_noop("An IANA time zone name, e.g. Europe/Berlin.")]}
            )
        user.time_zone = time_zone
        fields.append("time_zone")
    if fields:
        user.save(update_fields=fields)
    return user
