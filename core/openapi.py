"""Operation ids by one rule for every path, so a generated client has readable names.

The rule: the path's words after ``/api/v1/``, a collection named in the singular where one of
its items is meant (before its id, and as the last word of a ``create``), dots and hyphens as
underscores, then the action (``list``, ``create``, ``retrieve``, ``update``,
``partial_update``, ``destroy``): ``GET /matches`` is ``matches_list``, ``GET
/matches/{match_id}`` is ``match_retrieve``, ``POST /matches/{match_id}/moves`` is
``match_move_create``. ``tests/api/test_operation_ids.py`` keeps every id as it is.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema

PREFIX = "/api/v1/"
#: Collections whose items a path names, and their singular.
SINGULAR = {
    "bulk-pairings": "bulk_pairing",
    "challenges": "challenge",
    "deliveries": "delivery",
    "games": "game",
    "ladders": "ladder",
    "matches": "match",
    "moves": "move",
    "mutes": "mute",
    "players": "player",
    "proposals": "proposal",
    "reports": "report",
    "sanctions": "sanction",
    "push-subscriptions": "push_subscription",
    "reveals": "reveal",
    "seeks": "seek",
    "substitutes": "substitute",
    "series": "series",
    "tokens": "token",
    "tournaments": "tournament",
    "webhooks": "webhook",
}
ACTIONS = ("partial_update", "list", "create", "retrieve", "update", "destroy")


def operation_id(path: str, action: str) -> str:
    """The operation id of ``action`` on ``path`` (module docstring)."""
    segments = path.removeprefix(PREFIX).strip("/").split("/")
    words = []
    for i, segment in enumerate(segments):
        if segment.startswith("{"):
            continue
        following = segments[i + 1] if i + 1 < len(segments) else None
        item = following is not None and following.startswith("{")
        if item or (following is None and action == "create"):
            segment = SINGULAR.get(segment, segment)
        words.append(segment)
    name = "_".join([*words, action])
    return name.replace("-", "_").replace(".", "_")


class AutoSchema(SpectacularAutoSchema):
    def get_operation_id(self) -> str:
        generated = str(super().get_operation_id())
        action = next(a for a in ACTIONS if generated.endswith("_" + a))
        return operation_id(self.path, action)
