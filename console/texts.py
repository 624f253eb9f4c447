"""The console's words: durations, time controls, vacations and labels a person reads."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.events import timestamp
from games.services.vacations import VacationState
from games.time_controls import TimeControl


def _unit(count: int, unit: str) -> str:
    if unit == "day":
        return ngettext("%(n)d day", "%(n)d days", count) % {"n": count}
    if unit == "hour":
        return ngettext("%(n)d hour", "%(n)d hours", count) % {"n": count}
    if unit == "minute":
        return ngettext("%(n)d minute", "%(n)d minutes", count) % {"n": count}
    return ngettext("%(n)d second", "%(n)d seconds", count) % {"n": count}


def duration_words(seconds: float | None) -> str:
    """604800 → "7 days"; 90061 → "1 day 1 hour"; 0 → "0 seconds": the two largest units."""
    if seconds is None:
        return "—"
    whole = max(0, int(seconds))
    days, rest = divmod(whole, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute"), (secs, "second")]
    shown = [(n, unit) for n, unit in parts if n]
    if not shown:
        return _unit(0, "second")
    return " ".join(_unit(n, unit) for n, unit in shown[:2])


def time_control_text(raw: dict[str, Any] | None) -> str:
    """A time control in words: "Fischer: 3 days, +1 day a move, at most 7 days; …"."""
    if not raw:
        return _("untimed")
    tc = TimeControl.of(raw)
    if tc.kind == "per_step":
        clock = _("%(span)s per step") % {"span": duration_words(tc.per_step_seconds)}
    elif tc.kind == "fischer":
        clock = _("Fischer: %(initial)s, +%(increment)s a move, at most %(max)s") % {
            "initial": duration_words(tc.initial_seconds),
            "increment": duration_words(tc.increment_seconds),
            "max": duration_words(tc.max_seconds),
        }
    else:
        clock = _("byo-yomi: %(main)s, then %(periods)d x %(period)s") % {
            "main": duration_words(tc.main_seconds),
            "periods": tc.periods,
            "period": duration_words(tc.period_seconds),
        }
    if tc.on_timeout == "auto_move":
        timeout = _("on timeout a bot (%(bot)s) moves") % {"bot": tc.auto_move_bot}
    else:
        timeout = _("on timeout the seat forfeits")
    parts = [clock, timeout]
    if tc.correspondence:
        parts.append(_("weekends paused") if tc.weekend_pause else _("weekends count"))
        parts.append(_("pauses allowed") if tc.allow_pause else _("no pauses"))
    return "; ".join(parts)


def vacation_text(state: VacationState) -> str:
    bank = _("bank %(days).1f days") % {"days": state.bank_seconds / 86_400}
    if state.until:
        away = _("on vacation until %(until)s") % {"until": timestamp(state.until)}
    else:
        away = _("not on vacation")
    auto = _("automatic vacation on") if state.auto_vacation else _("automatic vacation off")
    zone = _("time zone %(zone)s") % {"zone": state.time_zone}
    return "; ".join([away, bank, auto, zone])


def controller_label(controlled_by: str) -> str:
    return _("Stand-in bot") if controlled_by == "bot" else _("Player")


def yes_no(value: bool) -> str:
    return _("yes") if value else _("no")
