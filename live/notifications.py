"""The account stream's items: each notification (the "stream" notification channel) and each
challenge item (``core.account_feed``) goes into its user's account log on the bus
(``Bus.account_append``), which numbers it and tells the user's open streams; ``GET
/api/v1/accounts/me/stream`` sends it with that number as its id. The batch comes after the
change committed (notify.dispatch); it goes out in the change's one write to Redis. The text
is ``{"type": …, "data": …}``, written by ``core.json_codec``."""

from __future__ import annotations

from collections.abc import Sequence

from core import json_codec
from core.account_feed import FeedItem
from live.bus import bus
from notify.kinds import Notification


def _text(kind: str, data: object) -> str:
    return json_codec.dumps({"type": kind, "data": data}).decode()


def stream_deliver(notifications: Sequence[Notification]) -> None:
    bus().account_append((n.user_id, _text(n.type, n.as_json())) for n in notifications)


def feed_deliver(items: Sequence[FeedItem]) -> None:
    bus().account_append((user_id, _text(kind, data)) for user_id, kind, data in items)
