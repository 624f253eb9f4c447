"""The production web server, ``python -m config.web`` (granian): what it reads from the
environment, what a request's ``environ`` holds, the workers' start, a graceful stop. The
metrics of its workers: tests/observability/test_multiprocess.py; its start refused with a
wrong configuration: tests/deployment/test_startup_checks.py."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from config.web import WebSettings, settings_from_environment
from tests.deployment.web_process import web_server
from tests.faults.conftest import wait_for

SECRET = "a-value-no-request-may-see"


def _get(port: int, method: str = "GET", body: bytes | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, "/probe?x=1", body=body, headers={"X-Client": "yes"})
    response = connection.getresponse()
    return response.status, response.read()


def _answers(port: int) -> bool:
    try:
        return _get(port)[0] == 200
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _name(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WEB_BIND", "GUNICORN_BIND", "WEB_CONCURRENCY", "WEB_THREADS", "GUNICORN_THREADS",
                 "WEB_WORKER_LIFETIME", "WEB_WORKER_MAX_RSS", "WEB_GRACEFUL_TIMEOUT"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    defaults = settings_from_environment()
    assert (defaults.host, defaults.port, defaults.threads) == ("0.0.0.0", 8000, 1)
    assert defaults.workers >= 2
    assert (defaults.worker_lifetime, defaults.worker_max_rss) == (None, None)
    assert defaults.graceful_timeout == 20
    # An existing deployment's GUNICORN_BIND still names the port; WEB_BIND wins over it.
    monkeypatch.setenv("GUNICORN_BIND", "127.0.0.1:9000")
    assert (settings_from_environment().host, settings_from_environment().port) == (
        "127.0.0.1",
        9000,
    )
    monkeypatch.setenv("WEB_BIND", "[::]:8080")
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("WEB_WORKER_LIFETIME", "3600")
    monkeypatch.setenv("WEB_WORKER_MAX_RSS", "512")
    monkeypatch.setenv("GUNICORN_THREADS", "2")  # an existing deployment's threads count too
    chosen = settings_from_environment()
    assert chosen == WebSettings(
        host="::",
        port=8080,
        uds=None,
        workers=3,
        threads=2,
        graceful_timeout=20,
        worker_lifetime=3600,
        worker_max_rss=512,
        backlog=2048,
    )
    monkeypatch.setenv("WEB_BIND", "unix:/run/facedown/web.sock")
    assert settings_from_environment().uds == "/run/facedown/web.sock"


def test_a_request_sees_its_own_keys_and_no_variable_of_the_process(tmp_path: Path) -> None:
    app = "tests.deployment.environ_wsgi:application"
    # HTTP_PROXY in the process's environment would read as a request's "Proxy:" header.
    with web_server(app, tmp_path, FACEDOWN_PROBE_SECRET=SECRET, HTTP_PROXY="http://evil") as (
        port,
        server,
    ):
        wait_for(lambda: _answers(port), 60, "the web server to answer")
        status, raw = _get(port, "POST", b'{"step": 1}')
        master_name = _name(server.pid)
        worker_names = [_name(pid) for pid in _children(server.pid)]
    assert status == 200
    answer: dict[str, Any] = json.loads(raw)
    environ = answer["environ"]
    assert SECRET not in raw.decode()
    assert "FACEDOWN_PROBE_SECRET" not in environ and "HTTP_PROXY" not in environ
    assert "PATH" not in environ and "DJANGO_SETTINGS_MODULE" not in environ
    assert environ["REQUEST_METHOD"] == "POST"
    assert (environ["PATH_INFO"], environ["QUERY_STRING"]) == ("/probe", "x=1")
    assert environ["HTTP_X_CLIENT"] == "yes" and environ["REMOTE_ADDR"] == "127.0.0.1"
    assert environ["SCRIPT_NAME"] == "" and environ["wsgi.url_scheme"] == "http"
    assert answer["body"] == '{"step": 1}'
    # An operator's ps names the processes.
    assert master_name == "facedown-web"
    assert worker_names == ["facedown-web worker-1"]


def test_a_worker_starts_with_the_preloaded_objects_frozen(tmp_path: Path) -> None:
    with web_server("tests.deployment.gc_wsgi:application", tmp_path) as (port, _):
        wait_for(lambda: _answers(port), 60, "the web server to answer")
        frozen = int(_get(port)[1])
    # Django and everything the settings load, tens of thousands of objects; none without the
    # freeze before the fork.
    assert frozen > 10_000, frozen


def test_a_stop_lets_the_request_in_flight_finish(tmp_path: Path) -> None:
    with web_server("tests.deployment.slow_wsgi:application", tmp_path) as (port, server):
        wait_for(lambda: _answers(port), 60, "the web server to answer")
        answered: list[int] = []
        request = threading.Thread(target=lambda: answered.append(_get(port)[0]))
        request.start()
        time.sleep(0.1)  # the request is in the worker (it answers after 0.3 s)
        server.send_signal(signal.SIGTERM)
        request.join(10)
        assert answered == [200]
        assert server.wait(20) == 0
    with pytest.raises(OSError):
        _get(port)


def _served_on_one_connection(port: int, requests: int, pause: float = 0.0) -> int:
    """How many of ``requests`` GETs sent one after another on one connection (``pause``
    seconds apart) were answered before the server closed it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        stream = raw.makefile("rb")
        for served in range(requests):
            time.sleep(pause)
            raw.sendall(b"GET / HTTP/1.1\r\nHost: test\r\n\r\n")
            assert stream.readline().startswith(b"HTTP/1.1 200")
            headers = {}
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            stream.read(int(headers["content-length"]))
            if headers.get("connection") == "close":
                assert stream.read() == b""  # and the server did close it
                return served + 1
        return requests


@pytest.mark.serial  # which worker is idle depends on the machine's load: alone on it
def test_a_saturated_worker_sends_a_connection_to_another(tmp_path: Path) -> None:
    """Two workers, one client: the worker with its connection is busy all the time, the other
    idle (config/web_balance.py) — the connection is closed, the client reconnects and the
    kernel picks a worker again. A client that pauses between requests keeps its connection."""
    app = "tests.deployment.busy_wsgi:application"
    with web_server(app, tmp_path, WEB_CONCURRENCY="2") as (port, server):
        wait_for(lambda: _answers(port), 60, "the web server to answer")
        wait_for(lambda: len(_children(server.pid)) == 2, 30, "both workers")
        assert _served_on_one_connection(port, 40, pause=0.03) == 40
        assert _served_on_one_connection(port, 150) < 150
    with web_server(app, tmp_path, WEB_CONCURRENCY="2", WEB_BALANCE="0") as (port, server):
        wait_for(lambda: _answers(port), 60, "the web server to answer")
        assert _served_on_one_connection(port, 150) == 150


def test_a_connection_that_sends_half_its_headers_is_closed(tmp_path: Path) -> None:
    app = "tests.deployment.environ_wsgi:application"
    with web_server(app, tmp_path, WEB_HEADER_READ_TIMEOUT="1") as (port, _):
        wait_for(lambda: _answers(port), 60, "the web server to answer")
        with socket.create_connection(("127.0.0.1", port), timeout=6) as sock:
            sock.sendall(b"GET /probe HTTP/1.1\r\nHost: 127")  # and nothing more
            sent = time.monotonic()
            try:
                while sock.recv(1024):  # an error answer, if any, then the end
                    pass
            except ConnectionResetError:
                pass
            closed_after = time.monotonic() - sent
    # Closed after about WEB_HEADER_READ_TIMEOUT, not kept for as long as the client likes.
    assert closed_after < 4
