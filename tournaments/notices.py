"""The tournament's announcements as notifications, through every channel notify has (mail,
webhooks, Web Push, the user's live stream). Registered as an announcement listener."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from notify.dispatch import notifications_send
from notify.kinds import KINDS, Kind, Notification


def _notification(item: dict[str, Any]) -> Notification:
    kind: Kind = item["kind"]
    data = {
        key: value
        for key, value in item.items()
        if key not in ("kind", "user_id", "tournament", "match", "at")
    }
    occurrence = item.get("match") or item.get("round") or ""
    return Notification(
        id=f"{kind}:{item['tournament']}:{occurrence}:{item['user_id']}",
        user_id=int(item["user_id"]),
        type=kind,
        match_id=item.get("match") or "",
        at=datetime.fromisoformat(item["at"].replace("Z", "+00:00")),
        data=data,
        tournament_id=item["tournament"],
    )


def notices_send(items: list[dict[str, Any]]) -> None:
    notifications_send([_notification(item) for item in items if item["kind"] in KINDS])
