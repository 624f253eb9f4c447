"""``GET /matches/{id}`` with ``If-None-Match`` answered by ``config.fast_polls`` gives exactly
what the whole stack gives: status, headers (but the request id), body, log lines and queries,
for a seat and a spectator, a 304 and a 200. Each case also says whether the fast path answers
it itself or hands it on, so a comparison never passes by both sides being Django."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import resolve

from accounts.authentication import CachedTokenAuthentication
from config.fast_moves import FastMoves
from config.fast_polls import PATH, FastPolls
from games.services import reads
from tests.api.test_fast_moves import Answer, wsgi
from tests.players import Player, start_match


def get(app: Any, path: str, *, token: str | None, **headers: str) -> Answer:
    """GET (or ``METHOD``) as a WSGI server would, the test database's connection kept open."""
    method = headers.pop("METHOD", "GET")
    return wsgi(app, path, token=token, body=b"", method=method, **headers)


@dataclass
class Apps:
    django: WSGIHandler
    fast: FastPolls
    answered: list[str]
    handed_on: list[str]

    def both(self, path: str, *, token: str | None, **headers: str) -> Answer:
        fast = get(self.fast, path, token=token, **headers)
        full = get(self.django, path, token=token, **headers)
        assert fast.comparable() == full.comparable(), (fast, full)
        return full


@pytest.fixture
def apps(monkeypatch: pytest.MonkeyPatch) -> Iterator[Apps]:
    django = WSGIHandler()
    fast = FastPolls(FastMoves(WSGIHandler()))
    answered: list[str] = []
    handed_on: list[str] = []
    answer = fast._answer

    def spy(request: Any, match_id: str) -> Any:
        try:
            response = answer(request, match_id)
        except Exception:
            answered.append(match_id)
            raise
        (answered if response is not None else handed_on).append(match_id)
        return response

    monkeypatch.setattr(fast, "_answer", spy)
    yield Apps(django, fast, answered, handed_on)


@pytest.fixture
def match(alice: Player, bob: Player) -> str:
    return start_match("gops", [alice, bob], options={"num_cards": 5})


def detail(match_id: str) -> str:
    return f"/api/v1/matches/{match_id}"


def test_a_304_and_a_200_are_the_same_for_seats_and_spectators(apps, alice, bob, carol, match):
    step = alice.match(match)["step"]
    for player in (alice, bob, carol):
        etag = get(apps.django, detail(match), token=player.token).headers["ETag"]
        unchanged = apps.both(detail(match), token=player.token, IF_NONE_MATCH=etag)
        assert unchanged.status == 304 and unchanged.body == b""
        assert unchanged.headers["ETag"] == etag
        assert unchanged.headers["Vary"].startswith("Authorization, Cookie")
        stale = apps.both(detail(match), token=player.token, IF_NONE_MATCH='"0"')
        assert stale.status == 200 and json.loads(stale.body)["id"] == match
    assert len(apps.answered) == 6 and not apps.handed_on
    # Alice's sealed move changes what she sees; the others see what the whole stack shows them.
    etags = [
        (p, get(apps.django, detail(match), token=p.token).headers["ETag"]) for p in (bob, carol)
    ]
    alice_etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]
    assert alice.post(f"/matches/{match}/moves", {"step": step, "move": {"card": 1}}).status_code
    mine = apps.both(detail(match), token=alice.token, IF_NONE_MATCH=alice_etag)
    assert mine.status == 200
    for player, etag in etags:
        seen = apps.both(detail(match), token=player.token, IF_NONE_MATCH=etag)
        assert seen.status in (200, 304)
        if seen.status == 200 and player is carol:  # a spectator: never the sealed card
            assert '"card":1' not in seen.body.decode()
    assert len(apps.answered) == 9


def test_what_is_not_a_plain_poll_is_djangos(apps, alice, match):
    etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]
    not_taken: list[dict[str, str]] = [
        {},  # no If-None-Match
        {"IF_NONE_MATCH": etag, "QUERY_STRING": "format=json"},
        {"IF_NONE_MATCH": etag, "COOKIE": "sessionid=x"},
        {"IF_NONE_MATCH": etag, "ACCEPT": "text/html"},
        {"IF_NONE_MATCH": etag, "METHOD": "HEAD"},
        {"IF_NONE_MATCH": etag, "CONTENT_LENGTH": "2"},
    ]
    for headers in not_taken:
        get(apps.fast, detail(match), token=alice.token, **headers)
    for path in (detail(match) + "/", detail(match) + "/events", "/api/v1/matches"):
        apps.both(path, token=alice.token, IF_NONE_MATCH=etag)
    apps.both(detail(match), token=None, IF_NONE_MATCH=etag)  # 401 without a token
    assert not apps.answered and not apps.handed_on
    # Taken, then handed on before anything was counted: a refused token; and a path that is
    # not ASCII, as a server hands it on (Latin-1), which Django must get as sent.
    assert apps.both(detail(match), token="0" * 40, IF_NONE_MATCH=etag).status == 401
    euro = "€".encode().decode("latin-1")
    assert apps.both(detail(euro), token="0" * 40, IF_NONE_MATCH=etag).status == 401
    assert not apps.answered and len(apps.handed_on) == 2
    # Answered here, by DRF's handling, as the whole stack answers them.
    unknown = "0" * 8 + "-0000-4000-8000-" + "0" * 12
    for other in (unknown, match.upper(), euro):
        answer = apps.both(detail(other), token=alice.token, IF_NONE_MATCH=etag)
        assert (answer.status, json.loads(answer.body)["code"]) == (404, "not_found")
    assert len(apps.answered) == 3


def test_a_throttled_poll_is_the_same(apps, alice, match, rates):
    etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]
    rates(reads="0/min")
    with CaptureQueriesContext(connection) as fast_queries:
        fast = get(apps.fast, detail(match), token=alice.token, IF_NONE_MATCH=etag)
    with CaptureQueriesContext(connection) as full_queries:
        full = get(apps.django, detail(match), token=alice.token, IF_NONE_MATCH=etag)
    assert len(fast_queries) == len(full_queries) == 1  # the token's look-up; no read
    # Retry-After counts down to the window's end: a second apart at most.
    assert abs(int(fast.headers.pop("Retry-After")) - int(full.headers.pop("Retry-After"))) <= 1
    assert fast.comparable() == full.comparable()
    assert fast.status == 429 and json.loads(fast.body)["code"] == "throttled"
    assert len(apps.answered) == 1


def test_each_poll_is_counted_once_by_the_throttles(apps, alice, match, rates):
    rates(reads="3/min")  # counters cleared: user ids repeat from test to test
    etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]  # the first
    answers = [get(apps.fast, detail(match), token=alice.token, IF_NONE_MATCH=etag) for _ in "abc"]
    assert [a.status for a in answers] == [304, 304, 429]
    assert len(apps.answered) == 3


def test_a_database_away_is_the_same(apps, alice, match, monkeypatch):
    etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]

    def away(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("the server closed the connection")

    with monkeypatch.context() as patch:  # the token's look-up: handed on
        patch.setattr(CachedTokenAuthentication, "authenticate_credentials", away)
        assert apps.both(detail(match), token=alice.token, IF_NONE_MATCH=etag).status == 503
    assert (len(apps.answered), len(apps.handed_on)) == (0, 1)
    # The match's read, and the state's after a changed ETag: answered here, by DRF's handling.
    with monkeypatch.context() as patch:
        patch.setattr(reads, "match_snapshot_read", away)
        assert apps.both(detail(match), token=alice.token, IF_NONE_MATCH=etag).status == 503
    with monkeypatch.context() as patch:
        patch.setattr(reads.SnapshotRead, "snapshot", away)
        assert apps.both(detail(match), token=alice.token, IF_NONE_MATCH='"0"').status == 503
    assert (len(apps.answered), len(apps.handed_on)) == (2, 1)


def test_the_log_lines_and_queries_are_the_same(apps, alice, match, caplog):
    etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]
    caplog.set_level("INFO")
    seen: dict[str, list[Any]] = {"fast": [], "django": []}
    for name, app in (("fast", apps.fast), ("django", apps.django)):
        for condition in (etag, '"0"'):
            caplog.clear()
            with CaptureQueriesContext(connection) as queries:
                status = get(app, detail(match), token=alice.token, IF_NONE_MATCH=condition).status
            lines = [
                (r.name, r.levelname, r.getMessage().split(" ")[:3], getattr(r, "user_id", None))
                for r in caplog.records
                if r.name in ("facedown.access", "django.request")
            ]
            seen[name].append((status, len(queries), lines))
    assert seen["fast"] == seen["django"]
    # The token's look-up (no token cache in the tests), then one read; a 200 reads the state.
    assert [(status, queries) for status, queries, _ in seen["fast"]] == [(304, 2), (200, 3)]
    assert seen["fast"][0][2] == [
        ("facedown.access", "INFO", ["GET", "match-detail", "304"], alice.user.pk)
    ]


def test_https_is_the_same(apps, alice, match, settings):
    etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]
    secure = apps.both(detail(match), token=alice.token, IF_NONE_MATCH=etag, SCHEME="https")
    assert secure.header("Strict-Transport-Security") == f"max-age={settings.SECURE_HSTS_SECONDS}"
    assert len(apps.answered) == 1


def test_it_can_be_turned_off(settings):
    settings.FACEDOWN_FAST_MOVES = False
    assert not FastPolls(WSGIHandler()).enabled
    settings.FACEDOWN_FAST_MOVES = True
    assert FastPolls(WSGIHandler()).enabled


def test_the_path_is_the_routes():
    match_id = "0b9c1f0e-4a37-4f0e-9d55-8f1f3f3f3f3f"
    assert resolve(detail(match_id)).url_name == "match-detail"
    found = PATH.fullmatch(detail(match_id))
    assert found is not None and found.group(1) == match_id
    for other in (detail(match_id) + "/", detail(match_id) + "/moves"):
        assert PATH.fullmatch(other) is None


def test_the_deployed_application_has_both_fast_paths():
    from config.wsgi import application

    assert isinstance(application, FastPolls) and isinstance(application.app, FastMoves)
    assert application.app.handler_class is WSGIHandler
    assert application.handler_class is WSGIHandler


def test_within_a_transaction_nothing_is_left_behind(apps, alice, match):
    """A poll writes nothing: the same rows before and after, on both paths."""
    etag = get(apps.django, detail(match), token=alice.token).headers["ETag"]
    with transaction.atomic():
        before = alice.match(match)
        apps.both(detail(match), token=alice.token, IF_NONE_MATCH=etag)
        assert alice.match(match) == before


def test_a_move_through_the_deployed_front_is_answered_by_the_moves_path(alice, match):
    """``FastPolls(FastMoves(django))``: a move passes the poll path untouched."""
    front = FastPolls(FastMoves(WSGIHandler()))
    step = alice.match(match)["step"]
    body = json.dumps({"step": step, "move": {"card": step}}).encode()
    with transaction.atomic():
        answer = wsgi(front, f"/api/v1/matches/{match}/moves", token=alice.token, body=body)
        transaction.set_rollback(True)
    assert answer.status == 202 and json.loads(answer.body)["seat"] == 0


def test_it_stands_aside_when_the_view_changes(monkeypatch):
    from rest_framework.permissions import AllowAny
    from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer

    from games.api.matches import MatchDetailApi

    with monkeypatch.context() as patch:
        patch.setattr(MatchDetailApi, "renderer_classes", [JSONRenderer, BrowsableAPIRenderer])
        assert not FastPolls(WSGIHandler()).enabled
    with monkeypatch.context() as patch:
        patch.setattr(MatchDetailApi, "permission_classes", [AllowAny])
        assert not FastPolls(WSGIHandler()).enabled
    assert FastPolls(WSGIHandler()).enabled
