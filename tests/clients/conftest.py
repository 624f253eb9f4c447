"""The Python client against a real server: uvicorn serving config.asgi (the whole API and the
live streams) on the test database, with a real Celery worker in this process playing the
house bots, as in production. The client reaches the server only over HTTP.

Server and worker are started once for this directory (a uvicorn start costs seconds) and
stopped after it, so no other test meets a worker of ours; each test still gets an emptied
database (``transactional_db``: the server must see the commits).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app
from tests.live.conftest import _env, _start, _stop, _wait_ready

PASSWORD = "client-test-password"


@pytest.fixture(scope="package")
def celery_in_process() -> Iterator[None]:
    """A Celery worker on a thread of this process: it runs the bot moves the server enqueues
    (this process's settings send their own follow-up jobs to Celery too)."""
    app.control.purge()  # nothing left over from an earlier run
    with start_worker(
        app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=10
    ):
        yield
    app.control.purge()


@pytest.fixture(scope="package")
def server(
    django_db_setup: None,
    django_db_blocker: object,
    celery_in_process: None,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """The base URL of a uvicorn server whose bot moves go to that worker. Its log goes to a
    file (a pipe nobody reads would stop the server once it held 64 KiB of log lines)."""
    log = tmp_path_factory.mktemp("server") / "uvicorn.log"
    with log.open("wb") as output:
        started = _start(_env(django_db_blocker) | {"FACEDOWN_TASK_RUNNER": "celery"}, output)
        try:
            _wait_ready(started)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{log.read_text()[-5000:]}") from error
        try:
            yield f"http://127.0.0.1:{started.port}"
        finally:
            _stop(started)


@pytest.fixture
def registered(server: str, transactional_db: None) -> Iterator[Callable[[], Any]]:
    """``registered()``: a new account's ``facedown_client.Client``, closed after the test."""
    from facedown_client import Client

    clients: list[Client] = []

    def make() -> Client:
        client = Client(server)
        client.register(f"bot-{uuid.uuid4().hex[:12]}", PASSWORD)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
