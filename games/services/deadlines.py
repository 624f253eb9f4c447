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
from typing import Any, Literal

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from core.errors import NotFound, ValidationFailed
from games import events
from games.catalog import bots_of
from games.locks import overdue_step_claim
from games.models import Match, Move
from games.services.moves import move_record
from games.services.standins import bot_decide, stand_in_name
from games.services.steps import match_play_on, seat_forfeit
from games.services.unit_of_work import MatchChange, match_change

log = logging.getLogger(__name__)

MAX_STEP_SECONDS = 14 * 24 * 3600
ON_TIMEOUT = ("auto_move", "forfeit")


def time_control_validate(raw: Any, *, game: str) -> dict[str, Any] | None:
    """The time control with defaults filled, or None for an untimed match."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ValidationFailed(
            {"time_control": [gettext_noop("An object, or null for an untimed match.")]}
        )
    errors: dict[str, list[str]] = {}
    unknown = set(raw) - {"per_step_seconds", "on_timeout", "auto_move_bot"}
    for key in sorted(unknown):
        errors[f"time_control.{key}"] = [gettext_noop("Unknown field.")]
    low = settings.FACEDOWN_MIN_STEP_SECONDS
    seconds = raw.get("per_step_seconds")
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int)
        or not (low <= seconds <= MAX_STEP_SECONDS)
    ):
        errors["time_control.per_step_seconds"] = [
            f"A whole number of seconds from {max(low, 10)} to {MAX_STEP_SECONDS}."
        ]
    on_timeout = raw.get("on_timeout", "auto_move")
    if on_timeout not in ON_TIMEOUT:
        errors["time_control.on_timeout"] = [f"One of {', '.join(ON_TIMEOUT)}."]
    bot = raw.get("auto_move_bot", "greedy")
    if bot not in bots_of(game):
        errors["time_control.auto_move_bot"] = [f"One of {', '.join(sorted(bots_of(game)))}."]
    if errors:
        raise ValidationFailed(errors)
    return {"per_step_seconds": seconds, "on_timeout": on_timeout, "auto_move_bot": bot}


def step_expire(*, match_id: uuid.UUID | str, step: int, now: datetime | None = None) -> bool:
    """Time out every seat that has not moved in ``step`` if its deadline has passed.
    Returns whether anything changed."""
    now = now or timezone.now()
    try:
        with match_change(match_id) as tx:
            match = tx.match
            if (
                match.status != Match.Status.ACTIVE
                or match.step != step
                or match.deadline is None
                or match.deadline > now
            ):
                return False
            step_time_out(tx)
    except NotFound:
        return False
    return True


def step_time_out(tx: MatchChange) -> None:
    """Time out the open step's late seats, by the match's policy.

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
    for seat in late:
        tx.emit(events.TIMEOUT({"seat": seat.index, "policy": policy}), step=step)
        if policy == "forfeit":
            seat_forfeit(tx, seat, reason="timeout")
    if policy == "forfeit":
        match_play_on(tx)
        return
    for seat in late:
        if match.step != step or match.phase_kind == Match.PhaseKind.REVEAL:
            break
        move = bot_decide(tx, seat, name=stand_in_name(tx))
        move_record(tx, seat=seat.index, move=move, source=Move.Source.TIMEOUT)


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
