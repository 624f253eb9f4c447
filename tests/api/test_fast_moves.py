"""``POST /moves`` answered by ``config.fast_moves`` gives exactly what the whole stack gives.

Every case is sent twice from the same state: once to ``FastMoves`` (inside a savepoint rolled
back afterwards) and once to Django's own WSGI handler; status, headers and body must agree
(but for the request id, and a receipt's salted digest, signature and time). Each case also
says which requests the fast path must answer itself and which it must hand to Django, so a
comparison never passes by both sides being Django.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import OperationalError, close_old_connections, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import resolve

import config.fast_moves as fast_moves
import games.api.matches as match_views
from accounts.authentication import CachedTokenAuthentication
from config.fast_moves import ACCOUNTED, PATH, FastMoves
from core.errors import ServiceUnavailable
from games.api.matches import MatchMovesApi
from games.services.moves import MoveAccepted, move_submit
from tests.players import Player, start_match

HEX = re.compile(r"[0-9a-f]+")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        return {key.lower(): value for key, value in self.headers.items()}.get(name.lower())

    def comparable(self) -> tuple[int, dict[str, str], Any]:
        headers = dict(self.headers)
        assert re.fullmatch(r"[0-9a-f]{32}", headers.pop("X-Request-ID")), self.headers
        length = headers.pop("Content-Length", None)  # Django's 400 for a bad host has none
        assert length is None or int(length) == len(self.body)
        return self.status, headers, _masked(json.loads(self.body) if self.body else None)


def _masked(document: Any) -> Any:
    """A receipt's salted digest, its signature and its time differ between two sendings."""
    if isinstance(document, dict):
        receipt = document.get("receipt")
        if isinstance(receipt, dict):
            for name in ("digest", "sig"):
                assert HEX.fullmatch(receipt[name]), receipt
                receipt[name] = "<hex>"
            receipt["at"] = "<time>"
    return document


def wsgi(
    app: Any, path: str, *, token: str | None, body: bytes, method: str = "POST", **headers: str
) -> Answer:
    """A request as a WSGI server sends it (a POST with a JSON body, unless told otherwise), with
    the test database's connection kept open (as Django's test client keeps it: closing it
    would end the test's transaction)."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "testserver",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if method == "POST":
        environ |= {"CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body))}
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Token {token}"
    environ["wsgi.url_scheme"] = headers.pop("SCHEME", "http")
    for name, value in headers.items():
        key = name.upper()
        plain = key in ("CONTENT_TYPE", "CONTENT_LENGTH", "QUERY_STRING", "SCRIPT_URL")
        environ[key if plain else f"HTTP_{key}"] = value
    status: list[str] = []
    sent: list[tuple[str, str]] = []

    def start_response(line: str, response_headers: list[tuple[str, str]], info: Any = None):
        status.append(line)
        sent.extend(response_headers)

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        result = app(environ, start_response)
        try:
            content = b"".join(result)
        finally:
            result.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return Answer(int(status[0].split()[0]), dict(sent), content)


@dataclass
class Apps:
    django: WSGIHandler
    fast: FastMoves
    answered: list[str]
    handed_on: list[str]

    def both(self, path: str, *, token: str | None, body: Any, **headers: str) -> Answer:
        """Send to the fast path and to Django, each from a savepoint rolled back afterwards (so
        both start from the same state, and so does the next case); compare."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        answers = []
        for app in (self.fast, self.django):
            with transaction.atomic():
                answers.append(wsgi(app, path, token=token, body=raw, **headers))
                transaction.set_rollback(True)
        fast, full = answers
        assert fast.comparable() == full.comparable(), (fast, full)
        return full


@pytest.fixture
def apps(monkeypatch: pytest.MonkeyPatch) -> Iterator[Apps]:
    django = WSGIHandler()
    fast = FastMoves(WSGIHandler())
    answered: list[str] = []
    handed_on: list[str] = []
    answer = fast._answer

    def spy(request: Any, match_id: str) -> Any:
        try:
            response = answer(request, match_id)
        except Exception:
            answered.append(match_id)  # answered by Django's response_for_exception, there
            raise
        (answered if response is not None else handed_on).append(match_id)
        return response

    monkeypatch.setattr(fast, "_answer", spy)
    yield Apps(django, fast, answered, handed_on)


@pytest.fixture
def match(alice: Player, bob: Player) -> str:
    return start_match("gops", [alice, bob], options={"num_cards": 5})


def moves(match_id: str) -> str:
    return f"/api/v1/matches/{match_id}/moves"


def test_every_answer_to_a_move_is_the_same_on_both_paths(apps, alice, bob, carol, match):
    step = alice.match(match)["step"]
    card = {"step": step, "move": {"card": step}}
    # Each: (the answer's status, its code) and whether the fast path answers it itself.
    cases: list[tuple[Callable[[], Answer], int, str | None, bool]] = [
        (lambda: apps.both(moves(match), token=alice.token, body=card), 202, None, True),
        (lambda: apps.both(moves(match), token=carol.token, body=card), 403, "not_seated", True),
        (
            lambda: apps.both(moves(match), token=alice.token, body={"step": step + 1, "move": {}}),
            409,
            "wrong_phase",
            True,
        ),
        (
            lambda: apps.both(
                moves(match), token=alice.token, body={"step": step, "move": {"card": 99}}
            ),
            400,
            "illegal_move",
            True,
        ),
        (
            lambda: apps.both(moves(match.upper()), token=alice.token, body=card),
            404,
            "not_found",
            True,
        ),
        (
            lambda: apps.both(
                moves("0" * 8 + "-0000-4000-8000-" + "0" * 12), token=alice.token, body=card
            ),
            404,
            "not_found",
            True,
        ),
        # Handed on before anything changed: DRF's own answers.
        (
            lambda: apps.both(moves(match), token="0" * 40, body=card),
            401,
            "not_authenticated",
            False,
        ),
        (lambda: apps.both(moves(match), token=alice.token, body=b"{"), 400, "parse_error", False),
        (
            lambda: apps.both(moves(match), token=alice.token, body={**card, "extra": 1}),
            400,
            "validation_error",
            False,
        ),
        (
            lambda: apps.both(moves(match), token=alice.token, body=[1, 2]),
            400,
            "validation_error",
            False,
        ),
    ]
    for send, status, code, answered_here in cases:
        before = (len(apps.answered), len(apps.handed_on))
        answer = send()
        assert answer.status == status, answer
        if code is not None:
            assert answer.headers["Content-Type"] == "application/problem+json"
            assert json.loads(answer.body)["code"] == code
        after = (len(apps.answered), len(apps.handed_on))
        assert after == (before[0] + 1, before[1]) if answered_here else (before[0], before[1] + 1)


def test_the_repeat_the_resolving_move_and_a_stale_step_are_the_same(apps, alice, bob, match):
    step = alice.match(match)["step"]
    card = {"step": step, "move": {"card": step}}
    raw = json.dumps(card).encode()
    # Alice's move, kept: then both paths start from a step that waits for Bob only.
    assert wsgi(apps.django, moves(match), token=alice.token, body=raw).status == 202
    assert apps.both(moves(match), token=alice.token, body=card).status == 200
    assert apps.both(moves(match), token=bob.token, body=card).status == 202
    # Bob's move, kept: the step has resolved.
    assert wsgi(apps.django, moves(match), token=bob.token, body=raw).status == 202
    stale = apps.both(moves(match), token=bob.token, body=card)
    assert (stale.status, json.loads(stale.body)["code"]) == (409, "stale_step")
    assert json.loads(stale.body)["recorded"] is True
    assert len(apps.answered) == 3 and not apps.handed_on


def test_headers_that_change_the_answer_are_the_same(apps, alice, match, settings):
    step = alice.match(match)["step"]
    card = {"step": step, "move": {"card": step}}
    settings.CORS_ALLOWED_ORIGINS = ["https://cards.example"]
    allowed = apps.both(moves(match), token=alice.token, body=card, ORIGIN="https://cards.example")
    assert allowed.header("Access-Control-Allow-Origin") == "https://cards.example"
    other = apps.both(moves(match), token=alice.token, body=card, ORIGIN="https://evil.example")
    assert other.header("Access-Control-Allow-Origin") is None
    assert len(apps.answered) == 2
    # Not the fast path's: content negotiation, another media type, a replay key.
    assert apps.both(moves(match), token=alice.token, body=card, ACCEPT="text/html").status == 406
    plain = apps.both(moves(match), token=alice.token, body=card, CONTENT_TYPE="text/plain")
    assert plain.status == 415
    keyed = apps.both(moves(match), token=alice.token, body=card, IDEMPOTENCY_KEY="k-1")
    assert keyed.status == 202
    assert len(apps.answered) == 2 and not apps.handed_on  # never even considered


def test_a_throttled_move_is_the_same(apps, alice, match, rates):
    rates(moves="0/min")
    step = alice.match(match)["step"]
    body = json.dumps({"step": step, "move": {"card": step}}).encode()
    fast = wsgi(apps.fast, moves(match), token=alice.token, body=body)
    full = wsgi(apps.django, moves(match), token=alice.token, body=body)
    # Retry-After counts down to the window's end: a second apart at most.
    assert abs(int(fast.headers.pop("Retry-After")) - int(full.headers.pop("Retry-After"))) <= 1
    assert fast.comparable() == full.comparable()
    assert fast.status == 429 and json.loads(fast.body)["code"] == "throttled"
    assert len(apps.answered) == 1


def test_a_database_away_and_a_crash_are_the_same(apps, alice, match, monkeypatch, caplog):
    step = alice.match(match)["step"]
    card = {"step": step, "move": {"card": step}}

    def away(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("the server closed the connection")

    # While the token is looked up: handed on, and Django's stack answers 503 itself.
    with monkeypatch.context() as patch:
        patch.setattr(CachedTokenAuthentication, "authenticate_credentials", away)
        assert apps.both(moves(match), token=alice.token, body=card).status == 503
    assert (len(apps.answered), len(apps.handed_on)) == (0, 1)

    monkeypatch.setattr(fast_moves, "move_submit", away)
    monkeypatch.setattr(match_views, "move_submit", away)
    unavailable = apps.both(moves(match), token=alice.token, body=card)
    assert unavailable.status == 503
    assert unavailable.header("Retry-After") == str(ServiceUnavailable().retry_after)

    def crash(**kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(fast_moves, "move_submit", crash)
    monkeypatch.setattr(match_views, "move_submit", crash)
    caplog.clear()
    crashed = apps.both(moves(match), token=alice.token, body=card)
    assert crashed.status == 500
    assert json.loads(crashed.body)["code"] == "server_error"
    # Django's own log line for each: "Internal Server Error: /api/v1/matches/…/moves".
    errors = [r for r in caplog.records if r.name == "django.request" and r.levelname == "ERROR"]
    assert len(errors) == 2 and all(r.exc_info for r in errors)
    assert (len(apps.answered), len(apps.handed_on)) == (2, 1)

    # A failure after the move committed (its answer cannot be built): a 500 on both paths,
    # with Django's log line, not the web server's bare error.
    monkeypatch.setattr(fast_moves, "move_submit", move_submit)
    monkeypatch.setattr(match_views, "move_submit", move_submit)

    def unanswerable(self: Any) -> Any:
        raise RuntimeError("the answer could not be built")

    monkeypatch.setattr(MoveAccepted, "as_dict", unanswerable)
    caplog.clear()
    lost = apps.both(moves(match), token=alice.token, body=card)
    assert (lost.status, json.loads(lost.body)["code"]) == (500, "server_error")
    errors = [r for r in caplog.records if r.name == "django.request" and r.levelname == "ERROR"]
    assert len(errors) == 2
    assert len(apps.answered) == 3


def test_the_log_lines_and_queries_are_the_same(apps, alice, bob, carol, match, caplog):
    step = alice.match(match)["step"]
    body = json.dumps({"step": step, "move": {"card": step}}).encode()
    caplog.set_level("INFO")
    seen: dict[str, list[Any]] = {"fast": [], "django": []}
    for name, app in (("fast", apps.fast), ("django", apps.django)):
        for player in (alice, carol):  # a 202, and a 403 (Django's "Forbidden: …" warning)
            caplog.clear()
            with transaction.atomic(), CaptureQueriesContext(connection) as queries:
                status = wsgi(app, moves(match), token=player.token, body=body).status
                transaction.set_rollback(True)
            lines = [
                (
                    r.name,
                    r.levelname,
                    r.getMessage().split(" ")[:3],
                    getattr(r, "user_id", None),
                    r.request_id != "-",  # type: ignore[attr-defined]
                )
                for r in caplog.records
                if r.name in ("facedown.access", "django.request")
            ]
            seen[name].append((status, len(queries), lines))
    assert seen["fast"] == seen["django"]
    (ok, _, ok_lines), (refused, _, refused_lines) = seen["fast"]
    assert (ok, refused) == (202, 403)
    assert ok_lines == [
        ("facedown.access", "INFO", ["POST", "match-moves", "202"], alice.user.pk, True)
    ]
    # Django writes its 4xx line after the outermost middleware has let the request id go.
    assert [(line[:2], line[4]) for line in refused_lines] == [
        (("facedown.access", "INFO"), True),
        (("django.request", "WARNING"), False),
    ]
    assert len(apps.answered) == 2


def test_what_is_not_a_plain_move_is_djangos(apps, alice, match, settings):
    step = alice.match(match)["step"]
    card = {"step": step, "move": {"card": step}}
    for path in (moves(match) + "/", f"/api/v1/matches/{match}/reveals", "/api/v1/matches"):
        apps.both(path, token=alice.token, body=card)
    apps.both(moves(match), token=None, body=card)  # 401 without a token
    apps.both(moves(match) + "?format=xml", token=alice.token, body=card)  # DRF's 404
    # A cookie (CSRF's would be renewed, with a new random value each time): Django's.
    wsgi(apps.fast, moves(match), token=alice.token, body=b"{}", COOKIE="csrftoken=bad")
    apps.both(moves(match), token=alice.token, body=card, CONTENT_LENGTH="")
    # Behind Apache's rewrite rules: the script prefix is Django's to work out.
    apps.both(moves(match), token=alice.token, body=card, SCRIPT_URL="/game" + moves(match))
    assert not apps.answered and not apps.handed_on
    # A path that is not ASCII, as a server hands it on (Latin-1): Django gets it as sent.
    euro = "€".encode().decode("latin-1")
    assert apps.both(moves(euro), token="0" * 40, body=card).status == 401
    assert apps.both(moves(euro), token=alice.token, body=card).status == 404
    assert len(apps.answered) == 1 and len(apps.handed_on) == 1
    apps.answered.clear()
    apps.handed_on.clear()
    # Taken, then handed on before anything changed: a host not allowed, an inactive user.
    settings.ALLOWED_HOSTS = ["facedown.example"]
    assert apps.both(moves(match), token=alice.token, body=card).status == 400
    settings.ALLOWED_HOSTS = ["testserver"]
    alice.user.is_active = False
    alice.user.save(update_fields=["is_active"])
    assert apps.both(moves(match), token=alice.token, body=card).status == 401
    assert not apps.answered and len(apps.handed_on) == 2


def test_https_and_a_commitment_are_the_same(apps, alice, match, settings):
    step = alice.match(match)["step"]
    secure = apps.both(
        moves(match), token=alice.token, body={"step": step, "move": {"card": step}}, SCHEME="https"
    )
    assert secure.header("Strict-Transport-Security") == f"max-age={settings.SECURE_HSTS_SECONDS}"
    assert settings.SECURE_HSTS_SECONDS > 0
    # A commitment on a sealed match: the rules' own 409.
    sealed = apps.both(moves(match), token=alice.token, body={"step": step, "commitment": "a" * 64})
    assert (sealed.status, json.loads(sealed.body)["code"]) == (409, "wrong_phase")
    assert len(apps.answered) == 2


def test_each_move_is_counted_once_by_the_throttles(apps, alice, match, rates):
    rates(moves="2/min")  # counters cleared: user ids repeat from test to test
    step = alice.match(match)["step"]
    body = json.dumps({"step": step, "move": {"card": step}}).encode()
    answers = [wsgi(apps.fast, moves(match), token=alice.token, body=body).status for _ in range(3)]
    assert answers == [202, 200, 429]
    assert len(apps.answered) == 3


def test_it_can_be_turned_off(alice, match, settings):
    settings.FACEDOWN_FAST_MOVES = False
    assert not FastMoves(WSGIHandler()).enabled
    settings.FACEDOWN_FAST_MOVES = True
    assert FastMoves(WSGIHandler()).enabled


def test_it_stands_aside_when_the_view_renders_or_parses_otherwise(monkeypatch):
    from rest_framework.parsers import FormParser
    from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer

    with monkeypatch.context() as patch:
        patch.setattr(MatchMovesApi, "renderer_classes", [JSONRenderer, BrowsableAPIRenderer])
        assert not FastMoves(WSGIHandler()).enabled
    with monkeypatch.context() as patch:
        patch.setattr(MatchMovesApi, "parser_classes", [*MatchMovesApi.parser_classes, FormParser])
        assert not FastMoves(WSGIHandler()).enabled
    assert FastMoves(WSGIHandler()).enabled


def test_every_middleware_is_accounted_for():
    """A middleware added to the stack must say what a fast move gets of it (ACCOUNTED)."""
    assert list(settings.MIDDLEWARE) == list(ACCOUNTED)


def test_the_path_is_the_routes():
    match_id = "0b9c1f0e-4a37-4f0e-9d55-8f1f3f3f3f3f"
    assert resolve(moves(match_id)).url_name == "match-moves"
    assert PATH.fullmatch(moves(match_id)).group(1) == match_id
    for other in (moves(match_id) + "/", f"/api/v1/matches/{match_id}/x/moves"):
        assert PATH.fullmatch(other) is None
