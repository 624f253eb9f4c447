"""A tournament's standings on its stream: an announcement listener, run after the change
that ended a round (or the tournament) committed, publishes the standings as they are now
(finished matches only) on the tournament's channel, once per tournament and change."""

from __future__ import annotations

import json
from typing import Any

from live.bus import bus, tournament_channel
from tournaments.services.reads import tournament_standings

#: The announcements after which the standings may have changed.
CHANGED = frozenset({"standings", "tournament_finished"})


def standings_publish(items: list[dict[str, Any]]) -> None:
    changed = sorted({item["tournament"] for item in items if item["kind"] in CHANGED})
    if changed:
        bus().publish_many(
            (tournament_channel(tid), json.dumps({"standings": tournament_standings(tid)}))
            for tid in changed
        )
