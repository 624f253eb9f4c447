"""The channels notifications go out through, and the fan-out to all of them.

A channel registers ``deliver(notifications)`` once at start-up (its app's ``ready``). The
fan-out runs after the change committed: each channel should only hand the batch on (enqueue a
task, publish to Redis) and return. One that raises is logged and skipped: the move that caused
the notifications has committed already, and the other channels still get them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from notify.kinds import Notification

log = logging.getLogger(__name__)

Deliver = Callable[[Sequence[Notification]], None]

_channels: dict[str, Deliver] = {}


def register_channel(name: str, deliver: Deliver) -> None:
    """Add (or replace, by name) a channel."""
    _channels[name] = deliver


def unregister_channel(name: str) -> None:
    _channels.pop(name, None)


def channels() -> tuple[str, ...]:
    return tuple(_channels)


def notifications_send(notifications: Sequence[Notification]) -> None:
    """Hand ``notifications`` to every channel; never raises."""
    if not notifications:
        return
    for name, deliver in list(_channels.items()):
        try:
            deliver(notifications)
        except Exception as exc:
            # Only ids and types: a notification carries nothing hidden, and neither does this.
            log.exception(
                "notification channel %s failed (%s) for %s",
                name,
                type(exc).__name__,
                ", ".join(f"{n.type}:{n.match_id}" for n in notifications[:5]),
            )
