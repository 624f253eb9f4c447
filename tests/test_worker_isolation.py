"""The two workers of scripts/test share one PostgreSQL and one Redis server and nothing on
them: each has its own test database, Redis database, Celery broker database and queue
(config/test_settings.py, pytest-django's per-worker database names)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from config.celery import app
from tests.workers import records

pytestmark = pytest.mark.skipif(
    not os.environ.get("PYTEST_XDIST_WORKER"), reason="checks pytest-xdist workers (scripts/test)"
)


def _everyone(folder: Path, count: int) -> list[dict[str, object]]:
    deadline = time.monotonic() + 120  # a worker records at its first test
    while time.monotonic() < deadline:
        found = records(folder)
        if len(found) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"only {len(records(folder))} of {count} workers recorded themselves")


def test_no_two_workers_share_a_database_a_redis_database_or_a_queue(
    db: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    worker = os.environ["PYTEST_XDIST_WORKER"]
    count = int(os.environ["PYTEST_XDIST_WORKER_COUNT"])
    everyone = _everyone(tmp_path_factory.getbasetemp().parent, count)
    assert sorted(str(r["worker"]) for r in everyone) == [f"gw{n}" for n in range(count)]
    for field in ("database", "redis_db", "broker_db", "queue"):
        values = [r[field] for r in everyone]
        assert len(set(values)) == count, f"workers share a {field}: {everyone}"
    (mine,) = (r for r in everyone if r["worker"] == worker)
    # The records are what this worker really talks to.
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        assert cursor.fetchone() == (mine["database"],)
    assert app.conf.task_default_queue == mine["queue"]
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        assert int(client.client_info()["db"]) == mine["redis_db"]
    finally:
        client.close()
