"""Time control: validating it, and expiring an overdue step (docs/design.md,
"Time, timeouts, bots").

The deadline on the match row is the truth. ``step_expire`` is idempotent: run twice, late, or
after the step resolved, it changes nothing. ``overdue_sweep`` finds every overdue step, so a
lost or never-scheduled task delays a timeout by at most one sweep interval.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from datetime import datetime
from functools import partial
from typing import Any, Literal

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from core.errors import NotFound, ValidationFailed
from core.text import Text, one_of
from games import dispatch, events
from games.catalog import bots_of
from games.locks import overdue_step_claim
from games.models import Match, Move
from games.services.bot_decisions import bot_decide, stand_in_name
from games.services.clock_changes import clock_timeout, deadline_refresh, seats_expired
from games.services.moves import move_record
from games.services.steps import match_play_on, seat_forfeit
from games.services.unit_of_work import MatchChange, match_change
from games.services.vacations import auto_vacation_take
from games.time_controls import KINDS, TimeControl

log = logging.getLogger(__name__)

MAX_STEP_SECONDS = 14 * 24 * 3600
MAX_BANK_SECONDS = 30 * 24 * 3600
MAX_PERIODS = 30
ON_TIMEOUT = ("auto_move", "forfeit")
_COMMON = {"kind", "on_timeout", "auto_move_bot", "weekend_pause", "allow_pause"}
_FORMS: dict[str, dict[str, int]] = {
    # field: its upper bound (the lower is FACEDOWN_MIN_STEP_SECONDS)
    "per_step": {"per_step_seconds": MAX_STEP_SECONDS},
    "fischer": {
        "initial_seconds": MAX_BANK_SECONDS,
        "increment_seconds": MAX_BANK_SECONDS,
        "max_seconds": MAX_BANK_SECONDS,
    },
    "byoyomi": {"main_seconds": MAX_BANK_SECONDS, "period_seconds": MAX_BANK_SECONDS},
}


def _seconds(value: Any, high: int) -> bool:
    low = settings.FACEDOWN_MIN_STEP_SECONDS
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def time_control_validate(raw: Any, *, game: str) -> dict[str, Any] | None:
    """The time control with defaults filled, or None for an untimed match (docs/api.md,
    "Time control"). An object without ``kind`` is ``per_step``, as before clocks."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ValidationFailed(
            {"time_control": [gettext_noop("An object, or null for an untimed match.")]}
        )
    kind = raw.get("kind", "per_step")
    if kind not in KINDS:
        raise ValidationFailed({"time_control.kind": [one_of(KINDS)]})
    form = _FORMS[kind]
    errors: dict[str, list[str]] = {}
    extra = {"periods"} if kind == "byoyomi" else set()
    for key in sorted(set(raw) - _COMMON - set(form) - extra):
        errors[f"time_control.{key}"] = [gettext_noop("Unknown field.")]
    low = max(settings.FACEDOWN_MIN_STEP_SECONDS, 1)
    for key, high in form.items():
        if not _seconds(raw.get(key), high):
            errors[f"time_control.{key}"] = [
                Text(
                    gettext_noop("A whole number of seconds from %(low)s to %(high)s."),
                    low=max(low, 10),
                    high=high,
                )
            ]
    periods = raw.get("periods")
    if kind == "byoyomi" and (
        isinstance(periods, bool) or not isinstance(periods, int) or not 1 <= periods <= MAX_PERIODS
    ):
        errors["time_control.periods"] = [
            Text(gettext_noop("A whole number of periods from 1 to %(high)s."), high=MAX_PERIODS)
        ]
    if (
        kind == "fischer"
        and "time_control.max_seconds" not in errors
        and "time_control.initial_seconds" not in errors
        and raw["max_seconds"] < raw["initial_seconds"]
    ):
        errors["time_control.max_seconds"] = [gettext_noop("At least initial_seconds.")]
    on_timeout = raw.get("on_timeout", "auto_move")
    if on_timeout not in ON_TIMEOUT:
        errors["time_control.on_timeout"] = [one_of(ON_TIMEOUT)]
    bot = raw.get("auto_move_bot", "greedy")
    if bot not in bots_of(game):
        errors["time_control.auto_move_bot"] = [one_of(sorted(bots_of(game)))]
    for flag, default in (("weekend_pause", False), ("allow_pause", True)):
        if not isinstance(raw.get(flag, default), bool):
            errors[f"time_control.{flag}"] = [gettext_noop("true or false.")]
    if errors:
        raise ValidationFailed(errors)
    valid = {
        "kind": kind,
        **{key: raw[key] for key in form},
        **({"periods": periods} if kind == "byoyomi" else {}),
        "on_timeout": on_timeout,
        "auto_move_bot": bot,
        "weekend_pause": raw.get("weekend_pause", False),
        "allow_pause": raw.get("allow_pause", True),
    }
    if valid["weekend_pause"] and not TimeControl.of(valid).correspondence:
        raise ValidationFailed(
            {
                "time_control.weekend_pause": [
                    gettext_noop("Only for correspondence: a day or more per step or bank.")
                ]
            }
        )
    return valid


def step_expire(*, match_id: uuid.UUID | str, step: int, now: datetime | None = None) -> bool:
    """Time out every seat that has not moved in ``step`` if its deadline has passed.
    Returns whether anything changed."""
    now = now or timezone.now()
    try:
        with match_change(match_id, now=now) as tx:
            match = tx.match
            if (
                match.status != Match.Status.ACTIVE
                or match.step != step
                or match.deadline is None
                or match.deadline > now
            ):
                return False
            if not step_time_out(tx):
                deadline_refresh(tx)  # a clock ran out and was held since: watch anew
                return False
    except NotFound:
        return False
    return True


def step_time_out(tx: MatchChange, *, forced: bool = False) -> bool:
    """Time out the open step's late seats, by the match's policy; returns whether any was.

    Late: a seat still to move whose clock has run out (``forced``, or a match timed before
    clocks, or a reveal phase: every seat still to move).
    ``auto_move``: the stand-in bot moves for the seat, which stays the player's.
    ``forfeit``: the seat forfeits (final) and the stand-in bot plays on for it.
    """
    match, step = tx.match, tx.match.step
    policy: Literal["auto_move", "forfeit"] = (match.time_control or {}).get(
        "on_timeout", "auto_move"
    )
    if match.phase_kind == Match.PhaseKind.REVEAL:
        # A missing reveal forfeits whatever the policy: otherwise a player could watch the
        # others reveal and then choose not to.
        policy = "forfeit"
    late = [
        seat
        for seat in tx.seats
        if match.acting_mask >> seat.index & 1
        and not match.submitted_mask >> seat.index & 1
        and not seat.forfeited
    ]
    if not forced and match.clocks is not None and match.phase_kind != Match.PhaseKind.REVEAL:
        expired = set(seats_expired(tx, tx.now))
        late = [seat for seat in late if seat.index in expired]
        # A correspondence player's vacation bank takes over before a timeout does.
        away = [seat for seat in late if auto_vacation_take(tx, seat)]
        for seat in away:
            assert seat.user_id is not None
            tx.after_commit(partial(dispatch.enqueue, "vacation_apply", seat.user_id))
        late = [seat for seat in late if seat not in away]
        if away and not late:
            return True
    if not late:
        return False
    for seat in late:
        clock_timeout(tx, seat.index)
        tx.emit(events.TIMEOUT({"seat": seat.index, "policy": policy}), step=step)
        if policy == "forfeit":
            seat_forfeit(tx, seat, reason="timeout")
    if policy == "forfeit":
        match_play_on(tx)
        if match.step == step and match.status == Match.Status.ACTIVE:
            deadline_refresh(tx)
        return True
    for seat in late:
        if match.step != step or match.phase_kind == Match.PhaseKind.REVEAL:
            break
        move = bot_decide(tx, seat, name=stand_in_name(tx))
        move_record(tx, seat=seat.index, move=move, source=Move.Source.TIMEOUT)
    if match.step == step and match.status == Match.Status.ACTIVE:
        deadline_refresh(tx)
    return True


def overdue_sweep(*, limit: int = 500, now: datetime | None = None) -> int:
    """Expire every overdue step (up to ``limit``); returns how many changed.

    Safe to run in every worker at once: each match is claimed with ``SKIP LOCKED`` and its
    row stays locked until its step has been expired (``locks.overdue_step_claim``), so
    concurrent sweeps split the overdue matches between them, and ``step_expire`` re-checks
    the step under the lock, so nothing is expired twice either way.
    """
    now = now or timezone.now()
    changed = 0
    handled: set[uuid.UUID] = set()
    for _ in range(limit):
        with overdue_step_claim(now=now, skip=handled) as claimed:
            if claimed is None:
                break
            match_id, step = claimed
            handled.add(match_id)
            # One broken match must not hold up every other match's timeout: its savepoint
            # rolls back, the claim moves on.
            try:
                changed += step_expire(match_id=match_id, step=step, now=now)
            except Exception:
                log.exception("expiring step %s of match %s failed", step, match_id)
    return changed
