"""With one thread per worker (the default), the production worker class serves each request
in the worker's main thread (config/gunicorn_worker.py): no hand-over to a pool thread and
back. Real gunicorn with config/gunicorn.conf.py and one worker process.

What must not change: keep-alive, pipelined requests on one connection, and more threads
still served by the pool. What gets better: a client that connects and sends nothing no longer
holds the only thread (it used to wait up to 5 s for the first bytes)."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.faults.conftest import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _get(port: int, path: str = "/") -> str | None:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", path)
        return connection.getresponse().read().decode()
    except OSError:
        return None


@contextmanager
def _gunicorn(tmp_path: Path, threads: int) -> Iterator[int]:
    port = free_port()
    env = {
        **os.environ,
        "WEB_CONCURRENCY": "1",
        "GUNICORN_THREADS": str(threads),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("GUNICORN_WORKER_CLASS", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "config/gunicorn.conf.py"),
         "--bind", f"127.0.0.1:{port}", "tests.deployment.thread_wsgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(lambda: _get(port) is not None, 20, "gunicorn to answer")
        yield port
    finally:
        server.terminate()
        server.wait(20)


def test_one_thread_serves_in_the_main_thread_and_keeps_alive(tmp_path: Path) -> None:
    with _gunicorn(tmp_path, threads=1) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        answers = []
        for path in ("/a", "/b", "/c"):  # one keep-alive connection
            connection.request("GET", path)
            response = connection.getresponse()
            answers.append(response.read().decode())
            assert response.getheader("Connection", "").lower() != "close"
        assert answers == ["main /a", "main /b", "main /c"]


def test_more_threads_are_still_served_by_the_pool(tmp_path: Path) -> None:
    with _gunicorn(tmp_path, threads=2) as port:
        assert _get(port, "/x") == "pool /x"


def test_pipelined_requests_are_all_answered_in_order(tmp_path: Path) -> None:
    with _gunicorn(tmp_path, threads=1) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                b"".join(
                    f"GET /{n} HTTP/1.1\r\nHost: t\r\n\r\n".encode() for n in ("one", "two", "3")
                )
            )
            received = b""
            deadline = time.monotonic() + 10
            while not received.endswith(b"main /3") and time.monotonic() < deadline:
                received += sock.recv(65536)
        bodies = [part.split(b"\r\n\r\n", 1)[1][:12] for part in received.split(b"HTTP/1.1 ")[1:]]
        assert [b.decode() for b in bodies] == ["main /one", "main /two", "main /3"]


def test_a_silent_connection_does_not_hold_the_worker(tmp_path: Path) -> None:
    with (
        _gunicorn(tmp_path, threads=1) as port,
        socket.create_connection(("127.0.0.1", port), timeout=10),  # says nothing
    ):
        time.sleep(0.2)  # accepted by now
        started = time.monotonic()
        assert _get(port, "/next") == "main /next"
        took = time.monotonic() - started
    assert took < 1.0, took  # not behind the silent one's 5 s wait for data
