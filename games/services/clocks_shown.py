"""The clocks and the step's deadline as a reader may see them.

Built from the match row alone, so a read's body changes only when the row does, never with
the wall clock: readers count down from ``running_since`` themselves. Under
``disclose_submitted: false`` another reader sees a seat that has moved exactly as one that has
not, its clock running until the step resolves: neither its clock nor the step's deadline moves
when it moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from games.events import timestamp
from games.models import Match
from games.services import bodies
from games.time_controls import Clock, expires_at, time_control_of


def _shown_running(match: Any, clock: Clock, seat: int, you: int | None) -> bool:
    """Whether ``you`` sees the seat's clock running."""
    if match.status != Match.Status.ACTIVE or clock["since"] is None or clock["out"]:
        return False
    if clock["stop"] is None:
        return True
    return not (match.disclose_submitted or seat == you)


def deadline_shown(match: Any, forfeited: Sequence[bool]) -> datetime | None:
    """The step's deadline as every reader sees it: the reveal phase's, or the earliest
    expiry of the clocks shown running (a seat's own stop does not count, so that the
    deadline is the same for every reader)."""
    if match.status != Match.Status.ACTIVE:
        return None
    tc = time_control_of(match)
    if tc is None or match.clocks is None or match.phase_kind == Match.PhaseKind.REVEAL:
        return match.deadline if match.status == Match.Status.ACTIVE else None
    expiries = [
        at
        for seat, clock in enumerate(match.clocks)
        if match.acting_mask >> seat & 1
        and not (seat < len(forfeited) and forfeited[seat])
        and _shown_running(match, clock, seat, None)
        and (at := expires_at(tc, clock, ignore_stop=True)) is not None
    ]
    return min(expiries) if expiries else None


def clocks_shown(
    match: Any, you: int | None, held_until: Sequence[datetime | None]
) -> list[bodies.SeatClock] | None:
    """Every seat's clock as ``you`` (a seat, or None) may see it."""
    tc = time_control_of(match)
    if tc is None or match.clocks is None:
        return None
    shown: list[bodies.SeatClock] = []
    for seat, clock in enumerate(match.clocks):
        is_running = _shown_running(match, clock, seat, you)
        stop = clock["stop"]
        remaining: int | None = clock["bank"]
        periods = clock["periods"]
        if stop is not None and not is_running and clock["since"] is not None:
            if seat == you or clock["out"]:
                remaining, periods = int(stop[0] or 0), stop[1]
            else:  # how long a seat took is its own until the step resolves
                remaining, periods = None, None
        held = held_until[seat] if seat < len(held_until) else None
        shown.append(
            {
                "seat": seat,
                "remaining_at_step_start": clock["bank"] / 1000,
                "remaining": None if remaining is None else remaining / 1000,
                "periods_left": periods,
                "running_since": clock["since"] if is_running else None,
                "expires_at": timestamp(expires_at(tc, clock, ignore_stop=True))
                if is_running
                else None,
                "time_zone": clock["tz"],
                "vacation_until": timestamp(held),
            }
        )
    return shown


def paused_until_shown(match: Any) -> str | None:
    """The end of the pause the players agreed to (it may lie in the past: the pause is over
    then; the body does not change by itself when it ends)."""
    if match.paused_until is None or match.status != Match.Status.ACTIVE:
        return None
    return timestamp(match.paused_until)


def seat_deadline(match: Any, seat: int) -> datetime | None:
    """When seat ``seat``'s own clock runs out (for that seat's own reminders and calendar):
    the reveal phase's deadline, or a match's timed before clocks."""
    tc = time_control_of(match)
    if tc is None or match.status != Match.Status.ACTIVE:
        return None
    if match.clocks is None or match.phase_kind == Match.PhaseKind.REVEAL:
        deadline: datetime | None = match.deadline
        return deadline
    return expires_at(tc, match.clocks[seat], ignore_stop=True)
