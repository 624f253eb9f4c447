"""The hot routes (a move, a poll) get what every other route gets, whoever signs in how.

Each hot route is sent through the deployed WSGI application (Django's own handler, the
routes' views like any other) with a token and with the web client's session, beside a route
off the hot path (the match's events, a reveal), and every answer must show the same host
check, body limit, CORS, security headers, throttles, request id, access log line and
problem+json errors.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from config.wsgi import application
from core.input import max_body_bytes
from tests.players import Player, start_match
from tests.wsgi_calls import Answer, wsgi

ORIGIN = "https://cards.example"
CSRF = "k" * 32  # an unmasked CSRF secret: the cookie and the header agree
SECURITY_HEADERS = (
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
)


@dataclass
class Signed:
    """How a request signs in: a token header, or the web client's session cookie (with the
    CSRF cookie and header a POST needs)."""

    kind: str
    player: Player

    def headers(self, method: str) -> tuple[str | None, dict[str, str]]:
        if self.kind == "token":
            return self.player.token, {}
        client = Client()
        client.force_login(self.player.user)
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        cookie = f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={CSRF}"
        headers = {"COOKIE": cookie}
        if method == "POST":
            headers["X_CSRFTOKEN"] = CSRF
        return None, headers


@pytest.fixture(params=["token", "session"])
def signed(request: pytest.FixtureRequest, alice: Player) -> Signed:
    return Signed(request.param, alice)


@pytest.fixture
def match(alice: Player, bob: Player) -> str:
    return start_match("gops", [alice, bob], options={"num_cards": 5})


def routes(match_id: str, etag: str, step: int) -> dict[str, tuple[str, str, bytes, bool]]:
    """Route name: (method, path, body, on the hot path)."""
    move = json.dumps({"step": step, "move": {"card": step}}).encode()
    reveal = json.dumps({"step": step, "move": {"card": step}, "salt": "00" * 16}).encode()
    base = f"/api/v1/matches/{match_id}"
    return {
        "match-moves": ("POST", f"{base}/moves", move, True),
        "match-detail": ("GET", base, b"", True),
        "match-reveals": ("POST", f"{base}/reveals", reveal, False),
        "match-events": ("GET", f"{base}/events", b"", False),
    }


def send(signed: Signed, method: str, path: str, body: bytes, **extra: str) -> Answer:
    token, headers = signed.headers(method)
    if method == "GET" and path.count("/") == 4:
        headers["IF_NONE_MATCH"] = extra.pop("ETAG")
    extra.pop("ETAG", None)
    return wsgi(application, path, token=token, body=body, method=method, **headers, **extra)


def security(answer: Answer) -> dict[str, str | None]:
    return {name: answer.header(name) for name in SECURITY_HEADERS}


def problem(answer: Answer) -> tuple[int, str, str | None]:
    assert answer.header("Content-Type") == "application/problem+json", answer
    return answer.status, json.loads(answer.body)["code"], answer.header("Vary")


@pytest.fixture
def sent(alice: Player, match: str) -> dict[str, Any]:
    etag = alice.get(f"/matches/{match}")["ETag"]
    return {"etag": etag, "routes": routes(match, etag, alice.match(match)["step"])}


def test_every_route_answers_with_the_same_headers_log_line_and_request_id(
    signed, sent, settings, caplog
):
    settings.CORS_ALLOWED_ORIGINS = [ORIGIN]
    caplog.set_level(logging.INFO, logger="facedown.access")
    seen: dict[str, dict[str, str | None]] = {}
    for route, (method, path, body, _) in sent["routes"].items():
        caplog.clear()
        # CORS is for token clients: a session's POST from another origin fails CSRF's check.
        origin = {"ORIGIN": ORIGIN} if signed.kind == "token" else {}
        answer = send(signed, method, path, body, ETAG=sent["etag"], **origin)
        assert answer.status < 500, (route, answer)
        rid = answer.header("X-Request-ID")
        assert rid and re.fullmatch(r"[0-9a-f]{32}", rid)
        (line,) = [r for r in caplog.records if r.name == "facedown.access"]
        assert (line.request_id, line.route, line.status) == (rid, route, answer.status)
        assert line.user_id == signed.player.user.pk, (route, signed.kind)
        seen[route] = {
            **security(answer),
            "cors": answer.header("Access-Control-Allow-Origin"),
        }
    assert seen["match-moves"]["X-Frame-Options"] == "DENY"
    assert seen["match-moves"]["cors"] == (ORIGIN if signed.kind == "token" else None)
    assert len({json.dumps(headers, sort_keys=True) for headers in seen.values()}) == 1, seen


def test_every_route_refuses_a_bad_host_and_a_long_body_alike(signed, sent, settings):
    settings.ALLOWED_HOSTS = ["facedown.example"]
    hosts = {
        route: problem(send(signed, method, path, body, ETAG=sent["etag"]))[:2]
        for route, (method, path, body, _) in sent["routes"].items()
    }
    assert set(hosts.values()) == {(400, "parse_error")}, hosts
    settings.ALLOWED_HOSTS = ["testserver"]
    too_long = str(max_body_bytes() + 1)
    lengths = {
        route: problem(send(signed, method, path, body, ETAG=sent["etag"], CONTENT_LENGTH=too_long))
        for route, (method, path, body, _) in sent["routes"].items()
    }
    assert {status_code for status_code, _, _ in lengths.values()} == {413}, lengths
    assert {code for _, code, _ in lengths.values()} == {"payload_too_large"}, lengths


def test_every_route_throttles_and_refuses_alike(signed, sent, rates):
    rates(moves="0/min", reads="0/min")
    throttled = {}
    for route, (method, path, body, _) in sent["routes"].items():
        answer = send(signed, method, path, body, ETAG=sent["etag"])
        assert int(answer.header("Retry-After") or 0) >= 1, (route, answer)
        throttled[route] = problem(answer)[:2]
    assert set(throttled.values()) == {(429, "throttled")}, throttled


def test_every_route_answers_an_unknown_match_alike(signed, sent, match):
    unknown = {}
    for route, (method, path, body, _) in sent["routes"].items():
        path = path.replace(match, "0b9c1f0e-4a37-4f0e-9d55-8f1f3f3f3f3f")
        unknown[route] = problem(send(signed, method, path, body, ETAG=sent["etag"]))[:2]
    assert set(unknown.values()) == {(404, "not_found")}, unknown


def test_a_session_post_without_its_csrf_header_is_refused_on_every_route(alice, sent):
    session = Signed("session", alice)
    for route, (method, path, body, _) in sent["routes"].items():
        if method != "POST":
            continue
        token, headers = session.headers("GET")  # the cookies, not the header
        answer = wsgi(application, path, token=token, body=body, **headers)
        assert problem(answer)[:2] == (403, "permission_denied"), (route, answer)
