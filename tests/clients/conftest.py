"""The Python client against a real server: uvicorn serving config.asgi (the whole API and the
live streams) on the test database, with a real Celery worker in this process playing the
house bots, as in production. The client reaches the server only over HTTP."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.live.conftest import Server, asgi_server_with  # noqa: F401  (a fixture)
from tests.worker.conftest import celery_worker, start_celery  # noqa: F401  (fixtures)

PASSWORD = "client-test-password"


@pytest.fixture
def server(request: pytest.FixtureRequest) -> str:
    """The base URL of a server whose bot moves go to the Celery worker of this test."""
    request.getfixturevalue("celery_worker")
    start: Callable[..., Server] = request.getfixturevalue("asgi_server_with")
    started = start(FACEDOWN_TASK_RUNNER="celery")
    return f"http://127.0.0.1:{started.port}"


@pytest.fixture
def registered(server: str) -> Iterator[Callable[[], Any]]:
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
