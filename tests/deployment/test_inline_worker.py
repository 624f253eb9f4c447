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
from threading import Thread

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
def _gunicorn(tmp_path: Path, threads: int, **settings: str) -> Iterator[int]:
    port = free_port()
    env = {
        **os.environ,
        "WEB_CONCURRENCY": "1",
        "GUNICORN_THREADS": str(threads),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "PYTHONPATH": str(ROOT),
        **settings,
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
            received = _received(sock, b"main /3")
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


def _received(sock: socket.socket, last: bytes) -> bytes:
    """What the server sends on ``sock`` until it ends with ``last`` (or 10 s pass)."""
    received = b""
    deadline = time.monotonic() + 10
    while not received.endswith(last) and time.monotonic() < deadline:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def _later(seconds: float, port: int, path: str, answers: dict[str, str | None]) -> Thread:
    def get() -> None:
        time.sleep(seconds)
        answers[path] = _get(port, path)

    thread = Thread(target=get)
    thread.start()
    return thread


def test_a_kept_connection_that_spoke_while_others_were_served_is_answered(
    tmp_path: Path,
) -> None:
    """Its keep-alive deadline passed while the main thread served another request, but its
    next request had arrived before: it is served, not closed unanswered."""
    with _gunicorn(tmp_path, threads=1, GUNICORN_KEEPALIVE="1") as port:
        kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        kept.request("GET", "/first")
        assert kept.getresponse().read() == b"main /first"
        answers: dict[str, str | None] = {}
        slow = _later(0.0, port, "/sleep/1.6", answers)
        time.sleep(0.5)  # the slow request is being served; "kept" has 0.5 s of keep-alive left
        kept.request("GET", "/second")
        assert kept.getresponse().read() == b"main /second"
        slow.join()
    assert answers["/sleep/1.6"] == "main /sleep/1.6"


def test_the_heartbeat_goes_on_between_requests(tmp_path: Path) -> None:
    """Requests that together outlast gunicorn's timeout, each far shorter: none is killed."""
    with _gunicorn(tmp_path, threads=1, GUNICORN_TIMEOUT="2") as port:
        connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=20) for _ in range(4)]
        for connection in connections:  # open and kept before the burst
            connection.request("GET", "/warm")
            assert connection.getresponse().read() == b"main /warm"
        for connection in connections:  # four requests of 0.9 s queued at once: 3.6 s
            connection.request("GET", "/sleep/0.9")
        assert [c.getresponse().read() for c in connections] == [b"main /sleep/0.9"] * 4


def test_a_late_first_request_is_answered_even_without_keep_alive(tmp_path: Path) -> None:
    with (
        _gunicorn(tmp_path, threads=1, GUNICORN_KEEPALIVE="0") as port,
        socket.create_connection(("127.0.0.1", port), timeout=10) as sock,
    ):
        time.sleep(0.3)  # connected, silent: waiting in the poller
        sock.sendall(b"GET /late HTTP/1.1\r\nHost: t\r\n\r\n")
        assert _received(sock, b"main /late").endswith(b"main /late")


def test_silent_connections_held_are_bounded(tmp_path: Path) -> None:
    """A worker holding SILENT_MAX connections that have said nothing stops accepting (an
    idle worker takes the next), and takes up again as soon as one speaks."""
    from config.gunicorn_worker import SILENT_MAX

    with _gunicorn(tmp_path, threads=1) as port:
        address = ("127.0.0.1", port)
        silent = [socket.create_connection(address, timeout=10) for _ in range(SILENT_MAX)]
        try:
            time.sleep(0.3)  # both accepted and parked
            answers: dict[str, str | None] = {}
            waiting = _later(0.0, port, "/next", answers)
            time.sleep(0.5)
            assert "/next" not in answers  # not accepted while the worker holds them
            silent[0].sendall(b"GET /spoke HTTP/1.1\r\nHost: t\r\n\r\n")
            assert _received(silent[0], b"main /spoke").endswith(b"main /spoke")
            waiting.join(5)
            assert answers["/next"] == "main /next"
        finally:
            for sock in silent:
                sock.close()
