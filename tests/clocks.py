"""Making a timed step overdue in a test: its running clocks are moved back in time, so they
ran out ``by`` ago, and the sweep's deadline with them (the clocks are the truth)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games.clock import TimeControl, iso
from games.models import Match


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
