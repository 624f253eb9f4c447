"""The worker keeps its database connection from one task to the next (config/celery.py):
Celery's Django fix-up would otherwise open a new PostgreSQL backend for every task."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from config.celery import app

pytestmark = pytest.mark.django_db(transaction=True)

_backends: list[int] = []


@app.task(name="tests.worker.backend_pid")
def backend_pid() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        _backends.append(cursor.fetchone()[0])


def test_tasks_share_one_database_connection(celery_worker: object) -> None:
    _backends.clear()
    for _ in range(6):
        backend_pid.delay()
    end = time.monotonic() + 15
    while len(_backends) < 6 and time.monotonic() < end:
        time.sleep(0.02)
    assert len(_backends) == 6
    assert len(set(_backends)) == 1, _backends


def test_a_broken_connection_is_replaced_before_the_next_task(celery_worker: object) -> None:
    _backends.clear()
    backend_pid.delay()
    end = time.monotonic() + 15
    while not _backends and time.monotonic() < end:
        time.sleep(0.02)
    assert _backends
    with connection.cursor() as cursor:  # the test's own connection ends the worker's backend
        cursor.execute("SELECT pg_terminate_backend(%s)", [_backends[0]])
    for _ in range(2):
        backend_pid.delay()
    while len(_backends) < 3 and time.monotonic() < end:
        time.sleep(0.02)
    assert len(_backends) == 3, "a task failed on the terminated connection"
    assert _backends[1] != _backends[0] and _backends[2] == _backends[1]
