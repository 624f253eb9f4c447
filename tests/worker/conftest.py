"""A real Celery worker on the real Redis broker, in a thread of the test process.

Tests here use ``transaction=True`` so the worker's own database connection sees their rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app


@pytest.fixture
def start_celery(settings) -> Iterator[Callable[[], AbstractContextManager[object]]]:
    """``with start_celery(): ...`` runs a worker for the block (it may be started again)."""
    settings.FACEDOWN_TASK_RUNNER = "celery"
    app.control.purge()  # nothing left over from an earlier run

    def run() -> AbstractContextManager[object]:
        return start_worker(
            app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=10
        )

    yield run
    app.control.purge()


@pytest.fixture
def celery_worker(start_celery) -> Iterator[object]:
    with start_celery() as worker:
        yield worker
