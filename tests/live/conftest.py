"""Real uvicorn processes serving config.asgi on the test database, for the stream tests.

Two servers, so a test can check that the Redis bus reaches streams across processes. The
test process commits moves through the API test client (``transactional_db``: the servers
must see the commits) and publishes through its own bus; the servers only stream.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from tests.faults.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
KEEPALIVE_SECONDS = 0.3


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]


def _database_url() -> str:
    db = connection.settings_dict
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


def _start(
    env: dict[str, str], stderr: Any = subprocess.PIPE, arguments: list[str] | None = None
) -> Server:
    """uvicorn serving config.asgi on a free port: with ``arguments`` (a command line's
    options, ``--host`` and ``--port`` replaced), else quiet and quick to stop."""
    port = free_port()
    options = list(arguments or ["--log-level", "warning", "--timeout-graceful-shutdown", "1"])
    for flag in ("--host", "--port"):
        if flag in options:
            del options[options.index(flag) : options.index(flag) + 2]
    process = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "config.asgi:application",
            "--host", "127.0.0.1", "--port", str(port), *options,
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )  # fmt: skip
    return Server(port, process)


def _wait_ready(server: Server) -> None:
    deadline = time.monotonic() + 90  # a busy machine imports slowly
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            output = server.process.stderr.read() if server.process.stderr else b""
            raise AssertionError(output.decode())
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/v1/games", timeout=2)
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the ASGI server did not start")


def _stop(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.communicate(timeout=3)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.communicate(timeout=10)


def _env(django_db_blocker: object) -> dict[str, str]:
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        url = _database_url()
    return dict(os.environ) | {
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": url,
        "REDIS_URL": settings.REDIS_URL,
        "FACEDOWN_TASK_RUNNER": "off",
        "FACEDOWN_LIVE_KEEPALIVE_SECONDS": str(KEEPALIVE_SECONDS),
        "FACEDOWN_THROTTLE_LIVE_OPENS": "100000/min",
        "FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS": "100000/min",
        "PYTHONPATH": str(ROOT),
    }


@pytest.fixture(scope="session")
def asgi_servers(django_db_setup: None, django_db_blocker: object) -> Iterator[list[Server]]:
    env = _env(django_db_blocker)
    servers = [_start(env), _start(env)]
    try:
        for server in servers:
            _wait_ready(server)
        yield servers
    finally:
        for server in servers:
            _stop(server)


@pytest.fixture
def asgi_server_with(
    django_db_setup: None, django_db_blocker: object
) -> Iterator[Callable[..., Server]]:
    """``asgi_server_with(FACEDOWN_…="…", stderr=file)``: a server of this test's own, with some
    settings changed; stopped after the test."""
    started: list[Server] = []

    def start(
        stderr: Any = subprocess.DEVNULL, arguments: list[str] | None = None, **settings: str
    ) -> Server:
        server = _start(_env(django_db_blocker) | settings, stderr, arguments)
        started.append(server)
        _wait_ready(server)
        return server

    yield start
    for server in started:
        _stop(server)


@pytest.fixture
def asgi(asgi_servers: list[Server]) -> Server:
    return asgi_servers[0]
