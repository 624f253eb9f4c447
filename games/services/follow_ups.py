"""The work a change leaves for later, run only once its transaction has committed.

``change_committed`` is sent once per change that wrote something, after its ``COMMIT``
(never after a rollback), outside the match's lock, with ``change`` the unit of work's
``MatchChange``: whatever only reacts to a change (notifications, live publication, metrics,
tournament progress, the idempotency note) connects to it in its app's ``AppConfig.ready()``;
a change's own services never call them. Receivers must not write to the match.

After a step opens, its bot seats must move and its deadline must be watched: both are handed
to the task runner (``games.dispatch``) after the commit, so nothing is enqueued for a change
that rolls back. The change has committed by then: a runner that cannot take the
job (the broker is down) never turns the request's answer into an error
(``dispatch.enqueue`` logs it, and ``robust`` guards anything else); the periodic sweep finds
the waiting bots and the overdue deadline from the match row.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.dispatch import Signal

from games import dispatch
from games.models import Match, Seat

#: Sent after a change committed: ``change`` (a ``MatchChange``). Module docstring.
change_committed = Signal()


def bots_waiting(match: Match, seats: list[Seat]) -> bool:
    """Whether a bot-controlled seat must still move in the open step. Never in a reveal
    phase: bots play plain moves, counted as revealed when the phase opens."""
    if match.phase_kind == Match.PhaseKind.REVEAL:
        return False
    return match.status == Match.Status.ACTIVE and any(
        seat.controlled_by == Seat.Controller.BOT
        and not seat.forfeited
        and match.acting_mask >> seat.index & 1
        and not match.submitted_mask >> seat.index & 1
        for seat in seats
    )


def bots_and_deadline_schedule(
    after_commit: Callable[[Callable[[], object]], None],
    *,
    match: Match,
    seats: list[Seat],
    now: datetime,
    deadline_changed: bool,
) -> None:
    """Enqueue, after the commit (``after_commit``), the bot moves and the deadline watch
    the match now needs."""
    if match.status != Match.Status.ACTIVE:
        return
    match_id, step = str(match.id), match.step
    if bots_waiting(match, seats):
        after_commit(partial(dispatch.enqueue, "bot_moves", match_id, step))
    if deadline_changed and match.deadline is not None:
        horizon = timedelta(seconds=settings.FACEDOWN_DEADLINE_TASK_HORIZON_SECONDS)
        # A far deadline is left to the periodic sweep: broker ETA tasks may be lost or
        # redelivered, and the deadline on the match row is the truth either way.
        if match.deadline - now <= horizon:
            after_commit(
                partial(dispatch.enqueue, "step_expire", match_id, step, eta=match.deadline)
            )
