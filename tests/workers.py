"""What each pytest-xdist worker runs against, recorded where every worker of the run sees it
(the run's shared temporary folder), so tests/test_worker_isolation.py can compare them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import redis
from django.conf import settings

from config.celery import app


def record(folder: Path) -> dict[str, Any]:
    """Write this worker's test database, Redis database (as Redis itself reports it), Celery
    queue and broker to ``folder``."""
    worker = os.environ["PYTEST_XDIST_WORKER"]
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        redis_db = int(client.client_info()["db"])
    finally:
        client.close()
    broker = redis.Redis.from_url(app.conf.broker_url)
    try:
        broker_db = int(broker.client_info()["db"])
    finally:
        broker.close()
    mine = {
        "worker": worker,
        "database": settings.DATABASES["default"]["TEST"]["NAME"],
        "redis_db": redis_db,
        "broker_db": broker_db,
        "queue": app.conf.task_default_queue,
    }
    (folder / f"worker-{worker}.json").write_text(json.dumps(mine))
    return mine


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(folder.glob("worker-gw*.json"))]
