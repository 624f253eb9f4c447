"""Making a timed step overdue in a test: its running clocks are moved back in time, so they
ran out ``by`` ago, and the sweep's deadline with them (the clocks are the truth)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games.models import Match
from games.time_controls import TimeControl, expires_at, iso


def overdue(*match_ids: object, by: timedelta = timedelta(seconds=1)) -> None:
    now = timezone.now()
    for match in Match.objects.filter(pk__in=match_ids):
        clocks = match.clocks
        if clocks is not None and match.time_control:
            tc = TimeControl.of(match.time_control)
            clocks = [
                {
                    **clock,
                    "since": iso(_back(now, by, tc.total_ms(clock["bank"], clock["periods"]))),
                }
                if clock["since"] is not None and clock["stop"] is None
                else clock
                for clock in clocks
            ]
        Match.objects.filter(pk=match.pk).update(deadline=now - by, clocks=clocks)


def _back(now: datetime, by: timedelta, ms: int) -> datetime:
    return now - by - timedelta(milliseconds=ms)


def runs_out_at(match_id: object, at: dict[int, datetime]) -> datetime | None:
    """Set seats' running clocks so that each runs out at its instant in ``at`` (seat index to
    moment; the bank held stays as it is, its start moves), and the sweep's deadline to the
    earliest expiry among the seats still to move, as ``deadline_refresh`` computes it.
    Returns that deadline."""
    match = Match.objects.get(pk=match_id)
    assert match.clocks is not None and match.time_control
    tc = TimeControl.of(match.time_control)
    clocks = list(match.clocks)
    for seat, moment in at.items():
        clock = clocks[seat]
        assert clock["since"] is not None and clock["stop"] is None, (seat, clock)
        ms = tc.total_ms(clock["bank"], clock["periods"])
        clocks[seat] = {**clock, "since": iso(moment - timedelta(milliseconds=ms))}
    forfeited = set(match.seats.filter(forfeited=True).values_list("index", flat=True))
    expiries = [
        moment
        for index, clock in enumerate(clocks)
        if match.acting_mask >> index & 1
        and not match.submitted_mask >> index & 1
        and index not in forfeited
        and (moment := expires_at(tc, clock)) is not None
    ]
    deadline = min(expiries) if expiries else None
    Match.objects.filter(pk=match.pk).update(deadline=deadline, clocks=clocks)
    return deadline
