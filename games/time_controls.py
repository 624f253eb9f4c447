"""Time controls and the clocks they run: pure computations, every one given ``now``.

Three forms (docs/api.md, "Time control"): ``per_step`` (a fixed time for every step, the
original form), ``fischer`` (a bank, an increment added when each step resolves, a cap) and
``byoyomi`` (a main bank, then N periods of T: a move within a period keeps it, a period that
runs out is gone). On a simultaneous step every acting seat's clock runs at once; on a turn
step only the seat to act.

A seat's clock is one JSON object on the match row (``Clock``), rewritten only when its state
changes: the bank as of ``since`` (when it started or resumes counting; in the future while a
vacation or an agreed pause holds it), the byo-yomi periods left, and ``stop``, what was left
when the seat's move was recorded. Nothing in it changes with the wall clock, so a read's body
and ETag don't either: readers count down themselves.

With a weekend pause, a seat's clock does not count Saturday and Sunday in its player's time
zone (``tz``, recorded when the match started). Times are computed in UTC, weekends found in
local time, so a daylight-saving change moves a weekend's edges but never its length in local
days.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any, Literal, TypedDict
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Kind = Literal["per_step", "fischer", "byoyomi"]
KINDS: tuple[Kind, ...] = ("per_step", "fischer", "byoyomi")
DAY = 24 * 3600
#: A match is played by correspondence (vacations and pauses apply) from one day per step or
#: per bank up.
CORRESPONDENCE_SECONDS = DAY


class Clock(TypedDict):
    """One seat's clock as stored (milliseconds; timestamps in ISO 8601)."""

    bank: int
    periods: int | None
    since: str | None
    stop: list[int | None] | None
    tz: str | None
    #: Its seat timed out in the open step (the stand-in moved, or it forfeited).
    out: bool


@dataclass(frozen=True)
class TimeControl:
    """A validated time control (``deadlines.time_control_validate`` builds the stored dict)."""

    kind: Kind
    on_timeout: str = "auto_move"
    auto_move_bot: str = "greedy"
    per_step_seconds: int = 0
    initial_seconds: int = 0
    increment_seconds: int = 0
    max_seconds: int = 0
    main_seconds: int = 0
    periods: int = 0
    period_seconds: int = 0
    weekend_pause: bool = False
    allow_pause: bool = True

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> TimeControl:
        """The stored dict (an old one without ``kind`` is ``per_step``)."""
        names = cls.__dataclass_fields__
        fields = {key: value for key, value in raw.items() if key in names}
        fields.setdefault("kind", "per_step")
        return cls(**fields)

    @property
    def correspondence(self) -> bool:
        longest = {
            "per_step": self.per_step_seconds,
            "fischer": max(self.initial_seconds, self.increment_seconds),
            "byoyomi": max(self.main_seconds, self.period_seconds),
        }[self.kind]
        return longest >= CORRESPONDENCE_SECONDS

    def first_bank(self) -> tuple[int, int | None]:
        """A seat's bank (ms) and periods when the match starts."""
        if self.kind == "fischer":
            return self.initial_seconds * 1000, None
        if self.kind == "byoyomi":
            return self.main_seconds * 1000, self.periods
        return self.per_step_seconds * 1000, None

    def reveal_seconds(self) -> int:
        """The reveal phase's own allowance (commit-reveal), not taken from any bank: the
        step's time, the increment, or one period."""
        return {
            "per_step": self.per_step_seconds,
            "fischer": self.increment_seconds,
            "byoyomi": self.period_seconds,
        }[self.kind]

    def total_ms(self, bank: int, periods: int | None) -> int:
        """Everything a clock holds: its bank, and its byo-yomi periods."""
        if self.kind == "byoyomi":
            return bank + (periods or 0) * self.period_seconds * 1000
        return bank


def time_control_of(match: Any) -> TimeControl | None:
    """A match's (or any row's with a ``time_control`` field) time control; None when untimed."""
    raw = match.time_control
    return TimeControl.of(raw) if raw else None


def parse(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def iso(value: datetime) -> str:
    return value.astimezone(ZoneInfo("UTC")).isoformat().replace("+00:00", "Z")


def zone(name: str | None) -> ZoneInfo | None:
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


# --- counting time, with or without weekends ----------------------------------------------


def _weekend_around(at: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """The weekend (Saturday 00:00 to Monday 00:00, local) that ``at`` is in, or the next one."""
    local = at.astimezone(tz)
    saturday = local.date() + timedelta(days=(5 - local.weekday()) % 7)
    if local.weekday() == 6:  # Sunday: the weekend began yesterday
        saturday = local.date() - timedelta(days=1)
    start = datetime.combine(saturday, time(), tzinfo=tz)
    end = datetime.combine(saturday + timedelta(days=2), time(), tzinfo=tz)
    return start.astimezone(ZoneInfo("UTC")), end.astimezone(ZoneInfo("UTC"))


def counted_ms(start: datetime, end: datetime, tz: ZoneInfo | None) -> int:
    """Milliseconds a clock counts between ``start`` and ``end``: all of them, or without the
    weekends of ``tz``."""
    if end <= start:
        return 0
    if tz is None:
        return _ms(end - start)
    total, at = 0, start
    while at < end:
        weekend_start, weekend_end = _weekend_around(at, tz)
        if at >= weekend_start:
            at = weekend_end
            continue
        total += _ms(min(end, weekend_start) - at)
        at = weekend_end
    return total


def after_counting(start: datetime, ms: int, tz: ZoneInfo | None) -> datetime:
    """The moment a clock started at ``start`` has counted ``ms``."""
    if tz is None:
        return start + timedelta(milliseconds=ms)
    at, left = start, ms
    while True:
        weekend_start, weekend_end = _weekend_around(at, tz)
        if at >= weekend_start:
            at = weekend_end
            continue
        room = _ms(weekend_start - at)
        if left <= room:
            return at + timedelta(milliseconds=left)
        left -= room
        at = weekend_end


def _ms(delta: timedelta) -> int:
    return delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000


# --- a seat's clock ---------------------------------------------------------------------------


def clock_new(tc: TimeControl, *, tz: str | None = None) -> Clock:
    bank, periods = tc.first_bank()
    return {"bank": bank, "periods": periods, "since": None, "stop": None, "tz": tz, "out": False}


def spend(tc: TimeControl, bank: int, periods: int | None, used: int) -> tuple[int, int | None]:
    """The bank and periods left after ``used`` ms; both 0 when it ran out. A byo-yomi period
    in which the seat moved is kept whole (``periods`` counts the ones not yet lost)."""
    if used <= bank:
        return bank - used, periods
    if tc.kind != "byoyomi":
        return 0, periods
    period = tc.period_seconds * 1000
    lost = (used - bank) // period
    return 0, max(0, (periods or 0) - lost)


def running(clock: Clock) -> bool:
    return clock["since"] is not None and clock["stop"] is None


def left_at(tc: TimeControl, clock: Clock, now: datetime) -> tuple[int, int | None]:
    """What the clock holds at ``now`` (as stopped, if it stopped)."""
    if clock["stop"] is not None:
        bank, periods = clock["stop"]
        return int(bank or 0), periods
    since = parse(clock["since"])
    if since is None:
        return clock["bank"], clock["periods"]
    used = counted_ms(since, now, zone(clock["tz"])) if now > since else 0
    return spend(tc, clock["bank"], clock["periods"], used)


def expires_at(tc: TimeControl, clock: Clock, *, ignore_stop: bool = False) -> datetime | None:
    """When the running clock runs out (None if it is not running). ``ignore_stop``: as if
    its seat had not moved (what other readers see under ``disclose_submitted: false``)."""
    since = parse(clock["since"])
    if since is None or (clock["stop"] is not None and not ignore_stop):
        return None
    return after_counting(since, tc.total_ms(clock["bank"], clock["periods"]), zone(clock["tz"]))


def overtime_at(tc: TimeControl, clock: Clock) -> datetime | None:
    """When a running byo-yomi clock's main bank runs out (its first period begins)."""
    since = parse(clock["since"])
    if tc.kind != "byoyomi" or since is None or clock["stop"] is not None or not clock["bank"]:
        return None
    return after_counting(since, clock["bank"], zone(clock["tz"]))


def clock_start(clock: Clock, at: datetime) -> Clock:
    return {**clock, "since": iso(at), "stop": None}


def clock_stopped(tc: TimeControl, clock: Clock, now: datetime) -> Clock:
    bank, periods = left_at(tc, clock, now)
    return {**clock, "stop": [bank, periods]}


def clock_settled(tc: TimeControl, clock: Clock, now: datetime) -> Clock:
    """The step resolved: what the clock holds from now, its increment added. A timed-out
    seat's clock keeps nothing but the increment (byo-yomi: one period, for the stand-in)."""
    bank, periods = left_at(tc, clock, now)
    if clock["out"]:
        bank = 0
        if tc.kind == "byoyomi":
            periods = max(periods or 0, 1)
    if tc.kind == "fischer" and clock["since"] is not None:
        bank = min(bank + tc.increment_seconds * 1000, tc.max_seconds * 1000)
    return {**clock, "bank": bank, "periods": periods, "since": None, "stop": None, "out": False}


def clock_held(tc: TimeControl, clock: Clock, now: datetime, until: datetime) -> Clock:
    """A vacation or an agreed pause: the clock counts nothing until ``until``. The bank is
    taken as of ``now``; a stopped clock keeps its stop, and its shadow (``expires_at``
    with ``ignore_stop``) is held the same way."""
    since = parse(clock["since"])
    if since is None:
        return clock
    used = counted_ms(since, now, zone(clock["tz"])) if now > since else 0
    bank, periods = spend(tc, clock["bank"], clock["periods"], used)
    return {**clock, "bank": bank, "periods": periods, "since": iso(max(until, now))}


def clock_resumed(clock: Clock, at: datetime) -> Clock:
    """A hold ended early (a vacation ended, a pause was lifted): the clock counts from ``at``
    if it was held beyond it."""
    since = parse(clock["since"])
    if since is None or since <= at:
        return clock
    return {**clock, "since": iso(at)}


def clock_timed_out(clock: Clock) -> Clock:
    return {**clock, "stop": [0, 0], "out": True}
