"""Gauges computed when Prometheus scrapes, from the rows and the broker themselves.

Each is one cheap query: the oldest overdue deadline reads the partial index on active
matches' deadlines; the bot lag looks only at active matches' bot seats; the queue depth is
one pipelined ``LLEN`` per priority list of the Celery queue. A source that cannot answer
(the database or Redis is down) leaves its gauges out and sets ``facedown_metrics_source_up``
to 0 for it, so the scrape itself never fails.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from functools import cache
from typing import Any

import redis
from django.conf import settings
from django.db.models import F, Min, Value
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from games.models import Match, Seat

log = logging.getLogger(__name__)

# kombu's Redis transport keeps one list per priority step: the queue's name for priority 0,
# the name + separator + step for the others (kombu.transport.redis, PRIORITY_STEPS).
_PRIORITY_STEPS = (0, 3, 6, 9)
_PRIORITY_SEPARATOR = "\x06\x16"
#: The header every task message carries with its publish time (Unix seconds), stamped in
#: ``before_task_publish`` (config/celery.py): the queue's oldest task's age reads it.
PUBLISHED_HEADER = "facedown_published_at"


def _age(oldest: datetime | None, now: datetime) -> float:
    return max(0.0, (now - oldest).total_seconds()) if oldest else 0.0


def overdue_oldest(now: datetime) -> datetime | None:
    """The earliest deadline of an active match that has passed (the sweep is behind)."""
    found = Match.objects.filter(status=Match.Status.ACTIVE, deadline__lt=now).aggregate(
        oldest=Min("deadline")
    )
    oldest: datetime | None = found["oldest"]
    return oldest


def bot_waiting_oldest() -> datetime | None:
    """When the step opened that a bot seat has waited on longest: bots move within a
    second of a step opening, so a growing lag means their tasks are not running."""
    bit: Any = Value(1).bitleftshift(F("index"))  # type: ignore[arg-type]
    found = (
        Seat.objects.filter(
            controlled_by=Seat.Controller.BOT,
            forfeited=False,
            match__status=Match.Status.ACTIVE,
        )
        .exclude(match__phase_kind=Match.PhaseKind.REVEAL)
        .annotate(
            acting=F("match__acting_mask").bitand(bit),
            moved=F("match__submitted_mask").bitand(bit),
        )
        .filter(acting__gt=0, moved=0)
        .order_by()
        .aggregate(oldest=Min("match__step_opened_at"))
    )
    oldest: datetime | None = found["oldest"]
    return oldest


@cache
def _broker(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)


def queue_depth(url: str, queue: str) -> int:
    pipe = _broker(url).pipeline(transaction=False)
    for name in _lists(queue):
        pipe.llen(name)
    return sum(int(n) for n in pipe.execute())


def _lists(queue: str) -> list[str]:
    return [
        queue if step == 0 else f"{queue}{_PRIORITY_SEPARATOR}{step}" for step in _PRIORITY_STEPS
    ]


def queue_oldest_age(url: str, queue: str, now: float | None = None) -> float | None:
    """Seconds since the oldest waiting task was published, None when none waits (or none
    carries the stamp). kombu pushes on the left and takes from the right, so each priority
    list's oldest message is its last one: one ``LINDEX -1`` per list."""
    pipe = _broker(url).pipeline(transaction=False)
    for name in _lists(queue):
        pipe.lindex(name, -1)
    stamps = []
    for raw in pipe.execute():
        if raw is None:
            continue
        try:
            stamp = json.loads(raw).get("headers", {}).get(PUBLISHED_HEADER)
        except (ValueError, AttributeError):
            continue
        if isinstance(stamp, int | float):
            stamps.append(float(stamp))
    if not stamps:
        return None
    return max(0.0, (time.time() if now is None else now) - min(stamps))


def task_publish_stamp(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """``before_task_publish``: the publish time in the message's headers."""
    if headers is not None:
        headers.setdefault(PUBLISHED_HEADER, time.time())


class StateCollector(Collector):
    def describe(self) -> Iterable[Metric]:
        # Named without samples: registering never runs a query.
        return list(self._families())

    def _families(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(
            "facedown_overdue_deadline_oldest_seconds",
            "How long ago the oldest still-unexpired deadline of an active match passed.",
        )
        yield GaugeMetricFamily(
            "facedown_bot_task_lag_seconds",
            "How long the longest-waiting bot seat has waited since its step opened.",
        )
        yield GaugeMetricFamily(
            "facedown_task_queue_depth",
            "Tasks waiting in the broker's queue (not yet taken by a worker).",
            labels=["queue"],
        )
        yield GaugeMetricFamily(
            "facedown_task_queue_oldest_seconds",
            "How long the oldest task waiting in the broker's queue has waited (0: none).",
            labels=["queue"],
        )
        yield GaugeMetricFamily(
            "facedown_metrics_source_up",
            "1 when the scrape could read the source (database, broker), else 0.",
            labels=["source"],
        )

    def collect(self) -> Iterable[Metric]:
        overdue, lag, depth, oldest, up = self._families()
        now = timezone.now()
        try:
            overdue.add_metric([], _age(overdue_oldest(now), now))
            lag.add_metric([], _age(bot_waiting_oldest(), now))
            up.add_metric(["database"], 1)
            yield overdue
            yield lag
        except Exception as exc:
            log.warning("metrics: the database did not answer (%s)", type(exc).__name__)
            up.add_metric(["database"], 0)
        broker = str(getattr(settings, "CELERY_BROKER_URL", ""))
        if broker.startswith(("redis://", "rediss://", "unix://")):
            queue = str(getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery"))
            try:
                depth.add_metric([queue], queue_depth(broker, queue))
                oldest.add_metric([queue], queue_oldest_age(broker, queue) or 0.0)
                up.add_metric(["broker"], 1)
                yield depth
                yield oldest
            except redis.RedisError as exc:
                log.warning("metrics: the broker did not answer (%s)", type(exc).__name__)
                up.add_metric(["broker"], 0)
        yield up
