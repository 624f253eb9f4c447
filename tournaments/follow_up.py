"""After a match finishes (or is aborted), its tournament's round may be over: a unit-of-work
follow-up hands the check to the task runner once the change has committed. It reads nothing
inside the match's lock; the job itself looks up whether the match belongs to a tournament."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from games import dispatch, events
from games.services.unit_of_work import MatchChange, follow_up_register

_OVER = {events.MATCH_FINISHED.name, events.MATCH_ABORTED.name}


def _match_over(tx: MatchChange) -> None:
    if any(event.type in _OVER for event in tx.events):
        job = partial(dispatch.enqueue, "tournament_match_finished", str(tx.match.pk))
        transaction.on_commit(job, robust=True)


follow_up_register(_match_over)
