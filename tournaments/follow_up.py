"""After a match finishes (or is aborted), its tournament's round may be over: once the change
has committed (``change_committed``, connected in ``TournamentsConfig.ready``) the check is
handed to the task runner. It reads nothing inside the match's lock; the job itself looks up
whether the match belongs to a tournament."""

from __future__ import annotations

from typing import Any

from games import dispatch, events
from games.services.unit_of_work import MatchChange

_OVER = {events.MATCH_FINISHED.name, events.MATCH_ABORTED.name}


def match_over(change: MatchChange, **_: Any) -> None:
    if any(event.type in _OVER for event in change.events):
        dispatch.enqueue("tournament_match_finished", str(change.match.pk))
