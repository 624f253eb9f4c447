"""The production web server (config/web.py) behind a TLS-terminating proxy, and without one.

Two real servers on the test database: one trusts one proxy hop (as docker-compose.yml sets
it up), one trusts none. A request that says ``X-Forwarded-Proto: https`` gets https links,
secure cookies and HSTS only from the first; static files are served with DEBUG off by both.
"""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from tests.deployment.helpers import ROOT, clean_env
from tests.faults.processes import free_port

pytestmark = pytest.mark.slow
HOST = "facedown.example"
HTTPS = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}


class Server:
    def __init__(self, log: Path, **env: str) -> None:
        db = connection.settings_dict
        self.port = free_port()
        full = clean_env(
            DATABASE_URL=(
                f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
                f"/{db['NAME']}"
            ),
            REDIS_URL=settings.REDIS_URL,
            DJANGO_SECRET_KEY="proxy-test-" + "x1y2z3" * 10,
            DJANGO_ALLOWED_HOSTS=HOST,
            FACEDOWN_SIGNING_KEY="2b" * 32,
            FACEDOWN_TASK_RUNNER="off",
            FACEDOWN_THROTTLE_ANON="100000/min",
            FACEDOWN_THROTTLE_REGISTER="100000/min",
            FACEDOWN_THROTTLE_MATCH_CREATE="100000/min",
            WEB_BIND=f"127.0.0.1:{self.port}",
            WEB_CONCURRENCY="1",
            **env,
        )
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "config.web"],
            cwd=ROOT,
            env=full,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )

    def wait(self) -> None:
        for _ in range(600):
            assert self.process.poll() is None, self.log.read_text()
            try:
                self.request("GET", "/api/v1/games")
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError(self.log.read_text())

    def request(self, method: str, path: str, body: Any = None, **headers: str) -> Answer:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        data = json.dumps(body).encode() if body is not None else None
        conn.request(
            method,
            path,
            body=data,
            headers={"Host": HOST, "Content-Type": "application/json", **headers},
        )
        response = conn.getresponse()
        answer = Answer(response.status, response.headers, response.read())
        conn.close()
        return answer

    def match_location(self, name: str, **headers: str) -> str:
        """Register ``name`` and create a match through this server; the 201's Location."""
        registered = self.request(
            "POST",
            "/api/v1/accounts/register",
            {"username": name, "password": "long-enough-pw"},
            **headers,
        )
        assert registered.status == 201, registered.body
        token = json.loads(registered.body)["token"]
        created = self.request(
            "POST",
            "/api/v1/matches",
            {"game": "gops", "seats": ["me", {"bot": "random"}], "options": {"num_cards": 4}},
            Authorization=f"Token {token}",
            **headers,
        )
        assert created.status == 201, created.body
        return str(created.headers["Location"])

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # quick shutdown: nothing is in flight
        self.process.wait(timeout=30)


@dataclass
class Answer:
    status: int
    headers: Message
    body: bytes


@pytest.fixture
def servers(transactional_db: None, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """(behind one trusted proxy, with the https redirect on; trusting no proxy)."""
    proxied = Server(
        tmp_path / "proxied.log",
        FACEDOWN_TRUSTED_PROXY_HOPS="1",
        DJANGO_SECURE_SSL_REDIRECT="1",
        DJANGO_CSRF_TRUSTED_ORIGINS=f"https://{HOST}",
    )
    direct = Server(tmp_path / "direct.log", FACEDOWN_TRUSTED_PROXY_HOPS="0")
    try:
        proxied.wait()
        direct.wait()
        yield proxied, direct
    finally:
        proxied.stop()
        direct.stop()


def test_https_behind_the_trusted_proxy_only_and_static_files(
    servers: tuple[Server, Server],
) -> None:
    proxied, direct = servers

    location = proxied.match_location("through-proxy", **HTTPS)
    assert location.startswith(f"https://{HOST}/api/v1/matches/")
    login = proxied.request("GET", "/admin/login/", **HTTPS)
    assert login.status == 200
    assert login.headers["Strict-Transport-Security"] == "max-age=31536000"
    cookies = login.headers.get_all("Set-Cookie") or []
    assert any(c.startswith("csrftoken=") and "Secure" in c for c in cookies), cookies
    # Plain http through the proxy is sent to https (the health check is exempt).
    plain = proxied.request("GET", "/admin/login/")
    assert plain.status == 301
    assert plain.headers["Location"] == f"https://{HOST}/admin/login/"
    assert "Strict-Transport-Security" not in plain.headers

    # Without trusted hops the client's X-Forwarded-Proto is ignored: http links, no HSTS.
    location = direct.match_location("no-proxy", **HTTPS)
    assert location.startswith(f"http://{HOST}/api/v1/matches/")
    login = direct.request("GET", "/admin/login/", **HTTPS)
    assert login.status == 200
    assert "Strict-Transport-Security" not in login.headers

    # Static files (the operator console's CSS) with DEBUG off, through WhiteNoise.
    for answer in (
        direct.request("GET", "/static/admin/css/base.css"),
        proxied.request("GET", "/static/admin/css/base.css", **HTTPS),
    ):
        assert answer.status == 200
        assert answer.headers["Content-Type"].startswith("text/css")
        assert b"body" in answer.body
    assert direct.request("GET", "/static/admin/css/no-such.css").status == 404
