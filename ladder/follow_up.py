"""After a match finishes (or is aborted), record it if it is a ladder match: once the change
has committed (``change_committed``, connected in ``LadderConfig.ready``) the job is handed to
the task runner, which looks up whether the match is the ladder's."""

from __future__ import annotations

from typing import Any

from games import dispatch, events
from games.services.unit_of_work import MatchChange

_OVER = {events.MATCH_FINISHED.name, events.MATCH_ABORTED.name}


def match_over(change: MatchChange, **_: Any) -> None:
    if any(event.type in _OVER for event in change.events):
        dispatch.enqueue("ladder_match_finished", str(change.match.pk))
