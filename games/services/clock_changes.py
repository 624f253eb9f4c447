"""The seats' clocks through a match's life, on an open ``MatchChange`` (games/time_controls.py has
the arithmetic).

Two deadlines come out of the clocks. ``match.deadline``, on the row, is the sweep's: the
earliest moment a clock of a seat still to move runs out. What readers see is computed from
the clocks instead (``deadline_shown``): under ``disclose_submitted: false`` a seat that has
moved still shows its clock running until the step resolves, so neither a clock nor the
step's deadline tells anyone else who has moved.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from accounts.models import User
from games.models import Match, Seat
from games.services.unit_of_work import MatchChange
from games.time_controls import (
    Clock,
    clock_held,
    clock_new,
    clock_settled,
    clock_start,
    clock_stopped,
    clock_timed_out,
    expires_at,
    iso,
    running,
    time_control_of,
)


def clocks_begin(tx: MatchChange) -> None:
    """The match starts: every seat's clock is set, with its player's time zone if weekends
    pause the clocks (recorded now: a later change of the profile leaves the match alone)."""
    tc = time_control_of(tx.match)
    if tc is None:
        return
    zones: dict[int, str] = {}
    if tc.weekend_pause:
        users = [seat.user_id for seat in tx.seats if seat.user_id is not None]
        zones = dict(User.objects.filter(pk__in=users).values_list("pk", "time_zone"))
    tx.match.clocks = [
        clock_new(tc, tz=zones.get(seat.user_id or 0, "UTC") if tc.weekend_pause else None)
        for seat in tx.seats
    ]


def _held_until(tx: MatchChange, seat: Seat) -> datetime | None:
    """Until when the seat's clock must not count: its player's vacation, an agreed pause."""
    holds = [at for at in (seat.held_until, tx.match.paused_until) if at is not None]
    return max(holds) if holds else None


def clocks_open(tx: MatchChange) -> None:
    """A step (or its reveal phase) opened: start the acting seats' clocks and set the
    sweep's deadline. A reveal phase spends no bank: it has its own allowance."""
    match, now = tx.match, tx.now
    tc = time_control_of(match)
    if tc is None:
        match.deadline = None
        return
    if match.clocks is None:  # a match timed before clocks existed: they start here
        match.clocks = [clock_new(tc) for _ in tx.seats]
    if match.phase_kind == Match.PhaseKind.REVEAL:
        match.deadline = now + timedelta(seconds=tc.reveal_seconds())
        return
    clocks: list[Clock] = list(match.clocks)
    for seat in tx.seats:
        clock = clocks[seat.index]
        if not match.acting_mask >> seat.index & 1 or seat.forfeited:
            continue
        if tc.kind == "per_step":
            clock = {**clock, "bank": tc.per_step_seconds * 1000}
        held = _held_until(tx, seat)
        clocks[seat.index] = clock_start(clock, max(now, held) if held else now)
    match.clocks = clocks
    deadline_refresh(tx)


def clock_on_submit(tx: MatchChange, seat: int) -> None:
    """The seat's move (or commitment) is recorded: its clock stops."""
    match = tx.match
    tc = time_control_of(match)
    if tc is None or match.clocks is None or match.phase_kind == Match.PhaseKind.REVEAL:
        return
    clock = match.clocks[seat]
    if not running(clock):
        return
    clocks = list(match.clocks)
    clocks[seat] = clock_stopped(tc, clock, tx.now)
    match.clocks = clocks
    deadline_refresh(tx)


def clock_timeout(tx: MatchChange, seat: int) -> None:
    """The seat timed out: its clock is spent."""
    match = tx.match
    if match.clocks is None:
        return
    clocks = list(match.clocks)
    clocks[seat] = clock_timed_out(clocks[seat])
    match.clocks = clocks


def clocks_settle(tx: MatchChange) -> None:
    """The step resolved: every clock that ran keeps what it had left, plus its increment."""
    match = tx.match
    tc = time_control_of(match)
    if tc is None or match.clocks is None:
        return
    match.clocks = [
        clock_settled(tc, clock, tx.now) if clock["since"] is not None else clock
        for clock in match.clocks
    ]


def clocks_hold(tx: MatchChange, until: datetime, *, seats: list[int] | None = None) -> None:
    """Hold the clocks (all, or ``seats``'s) until ``until``: a vacation, an agreed pause."""
    match = tx.match
    tc = time_control_of(match)
    if tc is None or match.clocks is None or match.phase_kind == Match.PhaseKind.REVEAL:
        return
    held = set(range(len(match.clocks)) if seats is None else seats)
    match.clocks = [
        clock_held(tc, clock, tx.now, until) if index in held else clock
        for index, clock in enumerate(match.clocks)
    ]
    deadline_refresh(tx)


def pause_begin(tx: MatchChange, until: datetime) -> None:
    """Pause the match until ``until``: no clock counts meanwhile, and a step opening during
    the pause starts its clocks at its end. A hold already reaching past it (a vacation, a
    longer pause) stays as it is."""
    earlier = [
        seat.index
        for seat in tx.seats
        if max((at for at in (seat.held_until, tx.match.paused_until) if at), default=tx.now)
        < until
    ]
    tx.match.paused_until = max(until, tx.match.paused_until or until)
    clocks_hold(tx, until, seats=earlier)


def pause_end(tx: MatchChange) -> None:
    """End the match's pause now: its clocks count again (a player's vacation goes on)."""
    tx.match.paused_until = None
    clocks_release(tx)


def clocks_release(tx: MatchChange, *, seats: list[int] | None = None) -> None:
    """A hold ended before its time: held clocks count again from now, or from the end of
    another hold still on them."""
    match = tx.match
    if match.clocks is None or match.phase_kind == Match.PhaseKind.REVEAL:
        return
    clocks = list(match.clocks)
    for seat in tx.seats:
        clock = clocks[seat.index]
        if (seats is not None and seat.index not in seats) or clock["since"] is None:
            continue
        held = _held_until(tx, seat)
        resume = max(tx.now, held) if held else tx.now
        since = datetime.fromisoformat(clock["since"])
        if since > resume:
            clocks[seat.index] = {**clock, "since": iso(resume)}
    match.clocks = clocks
    deadline_refresh(tx)


def clocks_add(tx: MatchChange, seconds: int) -> None:
    """An operator gives every running clock ``seconds`` more."""
    match = tx.match
    tc = time_control_of(match)
    if tc is None or match.clocks is None:
        return
    clocks: list[Clock] = []
    for clock in match.clocks:
        if clock["since"] is not None and clock["stop"] is None:
            # a clock that ran out gets the time from now
            if (at := expires_at(tc, clock)) is not None and at <= tx.now:
                clock = clock_held(tc, clock, tx.now, tx.now)
            clock = {**clock, "bank": clock["bank"] + seconds * 1000}
        clocks.append(clock)
    match.clocks = clocks
    deadline_refresh(tx)


def deadline_refresh(tx: MatchChange) -> None:
    """The sweep's deadline: the earliest expiry of a clock still running for a seat that
    must move."""
    match = tx.match
    tc = time_control_of(match)
    if tc is None or match.clocks is None:
        return
    if match.phase_kind == Match.PhaseKind.REVEAL:
        return  # set when the phase opened
    expiries = [
        at
        for seat in tx.seats
        if match.acting_mask >> seat.index & 1
        and not seat.forfeited
        and (at := expires_at(tc, match.clocks[seat.index])) is not None
    ]
    match.deadline = min(expiries) if expiries else None


def seats_expired(tx: MatchChange, now: datetime) -> list[int]:
    """The seats still to move whose clocks have run out at ``now``."""
    match = tx.match
    tc = time_control_of(match)
    if tc is None or match.clocks is None or match.phase_kind == Match.PhaseKind.REVEAL:
        return []
    return [
        seat.index
        for seat in tx.seats
        if (at := expires_at(tc, match.clocks[seat.index])) is not None and at <= now
    ]
