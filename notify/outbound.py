"""The channels that leave the server (e-mail, webhooks, Web Push), as one channel and one job.

The request that made a change only enqueues one job for its batch, and only for the
recipients who have such a destination (``User.offsite_channels``): no database query after
the commit (a move keeps its round-trip budget, tests/api/test_round_trips.py) and one message
to the task runner whatever the number of channels. The job runs each channel in turn; one that
fails is logged and the others still run. Each is safe to run twice: mail and webhook
deliveries are recorded once per notification, and a repeated push carries the same ``tag``, so
the browser replaces it instead of showing it twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from django.db import OperationalError

from games import dispatch
from notify.kinds import Notification
from notify.mail import mail_notifications
from notify.push import push_send
from notify.webhooks import webhooks_fan_out

log = logging.getLogger(__name__)

CHANNELS: dict[str, Callable[[Sequence[dict[str, Any]]], int]] = {
    "email": mail_notifications,
    "webhooks": webhooks_fan_out,
    "push": push_send,
}


def outbound_channel(notifications: Sequence[Notification]) -> None:
    """The channel registered with ``notify.dispatch``: one job for the batch, and none when
    no recipient has a destination outside the site (notify/offsite.py)."""
    items = [{**n.as_json(), "user": n.user_id} for n in notifications if n.offsite]
    if items:
        dispatch.enqueue("notifications_outbound", items)


def notifications_outbound(items: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The job: every outbound channel, each isolated from the others' failures. A database
    error is raised once every channel has had its turn, so the task runner retries the job
    (the channels that succeeded change nothing the second time)."""
    done: dict[str, int] = {}
    retry: OperationalError | None = None
    for name, send in CHANNELS.items():
        try:
            done[name] = send(items)
        except OperationalError as exc:
            retry = exc
        except Exception as exc:
            log.exception("outbound channel %s failed (%s)", name, type(exc).__name__)
    if retry is not None:
        raise retry
    return done
