"""The "stream" notification channel: each notification goes to its user's bus channel
(``user:<id>``), which ``GET /api/v1/accounts/me/stream`` forwards. The batch comes after the
change committed (notify.dispatch); one Redis pipeline carries it."""

from __future__ import annotations

import json
from collections.abc import Sequence

from live.bus import bus, user_channel
from notify.kinds import Notification


def stream_deliver(notifications: Sequence[Notification]) -> None:
    bus().publish_many(
        (user_channel(n.user_id), json.dumps(n.as_json(), separators=(",", ":")))
        for n in notifications
    )
