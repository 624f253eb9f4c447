"""Limits of the live paths on real uvicorn processes: open streams and long-polls per user
and per address, throttled opens (anonymous ones too), slots freed on close, the bounded
database pool under a burst of woken long-polls, and the access log."""

from __future__ import annotations

import http.client
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.http import HttpResponse

from accounts.tokens import token_issue
from tests.deployment.helpers import compose
from tests.live.client import Stream
from tests.live.conftest import Server, _env, _start, _stop, _wait_ready
from tests.live.longpolls import ConnectionCount, Polls
from tests.players import Player, start_match
from tests.schema_guard import session_guard

pytestmark = pytest.mark.usefixtures("transactional_db")

POOL = 8
HIGH = {
    "FACEDOWN_THROTTLE_LIVE_OPENS": "100000/min",
    "FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS": "100000/min",
}


def _token(player: Player) -> dict[str, str]:
    return {"Authorization": f"Token {player.token}"}


def _dsn() -> str:
    db = connection.settings_dict
    return (
        f"host={db.get('HOST') or '127.0.0.1'} port={db.get('PORT') or 5432} "
        f"user={db.get('USER') or 'postgres'} dbname={db['NAME']}"
    )


@pytest.fixture
def cleared() -> None:
    """Open counts and slots start from nothing (the servers share this Redis database)."""
    from django.core.cache import cache

    cache.clear()


def _last_seq(player: Player, match_id: str) -> int:
    return int(player.events(match_id)["results"][-1]["seq"])


def test_woken_long_polls_share_a_bounded_database_pool(
    asgi_server_with: Callable[..., Server], alice: Player, bob: Player, carol: Player
) -> None:
    count = int(os.environ.get("FACEDOWN_TEST_LONG_POLLS", "60"))
    application = f"facedown-pool-{os.getpid()}"
    server = asgi_server_with(
        PGAPPNAME=application,
        # As an environment shared with the web servers may say: the ASGI server ignores it.
        DB_CONN_MAX_AGE="60",
        FACEDOWN_LIVE_DB_CONCURRENCY=str(POOL),
        FACEDOWN_LIVE_MAX_STREAMS_PER_USER="10000",
        FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN="10000",
        FACEDOWN_LIVE_MAX_STREAMS_PER_ADDRESS="10000",
        FACEDOWN_ACCESS_LOG="0",
        **HIGH,
    )
    match_id = start_match("gops", [alice, bob])
    path = f"/api/v1/matches/{match_id}/events?after={_last_seq(alice, match_id)}&wait=20"
    with ConnectionCount(_dsn(), application) as connections:
        polls = Polls(server.port, path, _token(carol), count)
        # Every poll asked once and waits (and more connections at once fail here already).
        connections.settled(0.5, timeout=60, most=POOL + 1)
        opening_peak, connections.peak = connections.peak, 0
        started = time.monotonic()
        assert alice.move(match_id, 1, {"card": 7}).status_code == 202
        answers = polls.join(timeout=60)
        seconds = time.monotonic() - started
    print(
        f"\n{count} long-polls: peak connections {opening_peak} while opening, "
        f"{connections.peak} when woken ({connections.samples} samples); "
        f"all answered {seconds:.2f} s after the move"
    )
    assert [a.status for a in answers] == [200] * count
    assert all(a.body["results"][0]["type"] == "move_submitted" for a in answers)
    assert all("card" not in str(a.body) for a in answers)  # a sealed move stays sealed
    # One process, so at most its pool's connections (and one of a stream read in between).
    assert max(opening_peak, connections.peak) <= POOL + 1


@pytest.fixture(scope="module")
def tight_server(django_db_setup: None, django_db_blocker: object) -> Iterator[tuple[Server, Any]]:
    """One server with small limits for this module's tests, its stderr (the access log) in a
    file."""
    log = tempfile.NamedTemporaryFile(prefix="facedown-asgi-", suffix=".log")  # noqa: SIM115
    limits = {
        "FACEDOWN_LIVE_MAX_STREAMS_PER_USER": "2",
        "FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN": "1",
        "FACEDOWN_LIVE_MAX_STREAMS_PER_ADDRESS": "3",
        "FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS": "12/hour",
        "FACEDOWN_THROTTLE_LIVE_OPENS": "100000/min",
        # One proxy in front, as docker-compose.yml's Caddy (without the header, the socket's
        # address counts).
        "FACEDOWN_TRUSTED_PROXY_HOPS": "1",
    }
    server = _start(_env(django_db_blocker) | limits, log)
    try:
        _wait_ready(server)
        yield server, log
    finally:
        _stop(server)
        log.close()


@pytest.fixture
def tight(tight_server: tuple[Server, Any], cleared: None) -> tuple[Server, Any]:
    """The small-limits server, its counts and slots cleared."""
    return tight_server


def _refused(stream: Stream, code: str) -> None:
    assert stream.status == 429, stream.status
    content_type = stream.response.getheader("Content-Type", "")
    assert content_type == "application/problem+json"
    assert int(stream.response.getheader("Retry-After", "0")) >= 1
    raw = stream.response.read()
    assert json.loads(raw)["code"] == code
    # As the API's answers are, checked against the OpenAPI schema.
    answer = HttpResponse(raw, status=429, content_type=content_type)
    session_guard().check("GET", stream.path.partition("?")[0], answer)


def _open_again(server: Server, path: str, headers: dict[str, str]) -> Stream:
    """Opens until the server has noticed a closed stream (a few milliseconds)."""
    deadline = time.monotonic() + 5
    while True:
        stream = Stream(server.port, path, headers)
        if stream.status != 429 or time.monotonic() > deadline:
            return stream
        stream.close()
        time.sleep(0.02)


def test_streams_per_token_user_and_address_then_freed_on_close(
    tight: tuple[Server, Any], alice: Player, bob: Player
) -> None:
    server, _ = tight
    match_id = start_match("gops", [alice, bob])
    match_path = f"/api/v1/matches/{match_id}/stream"
    user_path = "/api/v1/accounts/me/stream"
    laptop, phone = (
        {"Authorization": f"Bearer {token_issue(alice.user, name=name)[1]}"}
        for name in ("laptop", "phone")
    )
    first = Stream(server.port, match_path, _token(alice))
    # One stream per token here: the same token again is refused, another of hers is not...
    _refused(Stream(server.port, user_path, _token(alice)), "too_many_streams")
    second = Stream(server.port, user_path, laptop)
    assert (first.status, second.status) == (200, 200)
    # ... until the user's two are open.
    _refused(Stream(server.port, match_path, phone), "too_many_streams")
    # Another user on the same address: one slot left there, then the address is full, and a
    # waiting long-poll counts like a stream.
    bobs = Stream(server.port, match_path, _token(bob))
    assert bobs.status == 200
    poll = Stream(server.port, f"/api/v1/matches/{match_id}/events?wait=5", _token(bob))
    _refused(poll, "too_many_streams")
    # Closing frees the slot at once.
    first.close()
    again = _open_again(server, match_path, _token(alice))
    assert again.status == 200
    for stream in (second, bobs, again):
        stream.close()


def test_the_address_counted_is_the_one_the_trusted_proxy_saw(
    tight: tuple[Server, Any], alice: Player, bob: Player
) -> None:
    server, _ = tight
    match_id = start_match("gops", [alice, bob])
    path = f"/api/v1/matches/{match_id}/stream"

    def behind_proxy(player: Player, forwarded: str) -> Stream:
        # A token of its own each (one stream per token here).
        token = {"Authorization": f"Bearer {token_issue(player.user, name='proxy')[1]}"}
        return Stream(server.port, path, token | {"X-Forwarded-For": forwarded})

    # Three streams from 203.0.113.7 fill that address (whatever the client wrote before it).
    opened = [
        behind_proxy(alice, "203.0.113.7"),
        behind_proxy(alice, "10.9.9.9, 203.0.113.7"),
        behind_proxy(bob, "203.0.113.7"),
    ]
    assert [s.status for s in opened] == [200, 200, 200]
    _refused(behind_proxy(bob, "198.51.100.1, 203.0.113.7"), "too_many_streams")
    # Another client address behind the same proxy is not held back.
    other = behind_proxy(bob, "203.0.113.7, 198.51.100.1")
    assert other.status == 200
    for stream in (*opened, other):
        stream.close()


def test_opens_are_throttled_per_address_anonymous_ones_too(
    tight: tuple[Server, Any], alice: Player, bob: Player
) -> None:
    server, _ = tight
    match_id = start_match("gops", [alice, bob])
    path = f"/api/v1/matches/{match_id}/stream"
    statuses = []
    for _ in range(12):
        stream = Stream(server.port, path, {"Authorization": "Token nope"})
        statuses.append(stream.status)
        stream.close()
    assert statuses == [401] * 12
    _refused(Stream(server.port, path), "throttled")
    # The address's window is spent for everyone behind it, with credentials too.
    _refused(Stream(server.port, path, _token(alice)), "throttled")


def test_the_access_log_has_stream_opens_without_their_ticket(
    tight: tuple[Server, Any], alice: Player, bob: Player
) -> None:
    server, log = tight
    match_id = start_match("gops", [alice, bob])
    ticket = alice.client.post(
        "/api/v1/accounts/stream-ticket", {"streams": [f"match:{match_id}"]}, format="json"
    ).json()["ticket"]
    stream = Stream(server.port, f"/api/v1/matches/{match_id}/stream?ticket={ticket}")
    assert stream.status == 200
    request_id = stream.response.getheader("X-Request-ID")
    stream.close()
    refused = Stream(server.port, f"/api/v1/accounts/me/stream?ticket={ticket}")
    assert refused.status == 403
    deadline = time.monotonic() + 5
    while b"live-user-stream" not in (text := open(log.name, "rb").read()):  # noqa: SIM115
        assert time.monotonic() < deadline, text
        time.sleep(0.02)
    lines = text.decode().splitlines()
    assert request_id
    opened = [line for line in lines if request_id in line]
    assert len(opened) == 1 and "GET live-match-stream 200" in opened[0]
    assert f"user={alice.user.pk}" in opened[0]
    assert any("GET live-user-stream 403" in line for line in lines)
    assert ticket not in text.decode() and ticket.split(":")[0] not in text.decode()
    # A long-poll asks the view twice here (at once, and when its second is up): both asks are
    # logged under the one request id its answer carries.
    after = _last_seq(alice, match_id)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(
        "GET", f"/api/v1/matches/{match_id}/events?after={after}&wait=1", headers=_token(alice)
    )
    poll = connection.getresponse()
    assert poll.status == 200 and json.loads(poll.read())["results"] == []
    poll_id = poll.getheader("X-Request-ID", "")
    connection.close()
    deadline = time.monotonic() + 5
    while open(log.name, "rb").read().count(poll_id.encode()) < 2:  # noqa: SIM115
        assert time.monotonic() < deadline, open(log.name).read()  # noqa: SIM115
        time.sleep(0.02)
    asks = [line for line in open(log.name).read().splitlines() if poll_id in line]  # noqa: SIM115
    assert len(asks) == 2 and all("GET match-events 200" in line for line in asks)


def test_the_production_uvicorn_command_logs_no_ticket(
    asgi_server_with: Callable[..., Server], alice: Player, bob: Player
) -> None:
    """docker-compose.yml's command line, at uvicorn's most talkative access log level."""
    command = compose()["services"]["asgi"]["command"]
    assert command[:2] == ["uvicorn", "config.asgi:application"]
    log = tempfile.NamedTemporaryFile(prefix="facedown-asgi-", suffix=".log")  # noqa: SIM115
    server = asgi_server_with(stderr=log, arguments=[*command[2:], "--log-level", "info"], **HIGH)
    match_id = start_match("gops", [alice, bob])
    ticket = alice.client.post(
        "/api/v1/accounts/stream-ticket", {"streams": [f"match:{match_id}"]}, format="json"
    ).json()["ticket"]
    stream = Stream(server.port, f"/api/v1/matches/{match_id}/stream?ticket={ticket}")
    assert stream.status == 200
    stream.close()
    deadline = time.monotonic() + 5
    while b"live-match-stream" not in (text := open(log.name, "rb").read()):  # noqa: SIM115
        assert time.monotonic() < deadline, text
        time.sleep(0.02)
    assert ticket.encode() not in text
