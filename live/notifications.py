"""The "stream" notification channel: each notification goes to its user's bus channel
(``user:<id>``), which ``GET /api/v1/accounts/me/stream`` forwards. The batch comes after the
change committed (notify.dispatch); one Redis pipeline carries it. The stream parses the text:
``core.json_codec`` writes it."""

from __future__ import annotations

from collections.abc import Sequence

from core import json_codec
from live.bus import bus, user_channel
from notify.kinds import Notification


def stream_deliver(notifications: Sequence[Notification]) -> None:
    bus().publish_many(
        (user_channel(n.user_id), json_codec.dumps(n.as_json()).decode()) for n in notifications
    )
