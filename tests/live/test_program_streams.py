"""The account stream as programs read it (docs/programs.md): challenge items, ids to resume
from with ``Last-Event-ID``, the ``read`` scope, and streams that end with their token when it
is revoked or expires. Real uvicorn processes, the real Redis bus."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AccessToken
from accounts.tokens import token_issue
from tests.leaks import keys_in
from tests.live.client import Stream
from tests.live.conftest import Server
from tests.live.test_stream_revocation import _ends_within
from tests.players import Player, make_player, start_match

pytestmark = pytest.mark.usefixtures("transactional_db")
ME = "/api/v1/accounts/me/stream"


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def _challenge(by: Player, to: Player) -> str:
    sent = by.post("/challenges", {"game": "gops", "to": to.name, "options": {"num_cards": 3}})
    assert sent.status_code == 201, sent.content
    return str(sent.json()["id"])


def test_challenges_reach_both_sides_numbered(asgi: Server, alice: Player, bob: Player) -> None:
    pending = _challenge(alice, bob)
    theirs = Stream(asgi.port, ME, _bearer(bob.token), ndjson=True)
    mine = Stream(asgi.port, ME, _bearer(alice.token), ndjson=True)
    (snapshot,) = theirs.events(1)
    assert [c["id"] for c in snapshot.data["challenges"]] == [pending]
    mine.events(1)
    second = _challenge(alice, bob)
    (item,) = theirs.events(1)
    assert (item.type, item.data["id"], item.data["challenger"]) == ("challenge", second, "alice")
    assert isinstance(item.id, str) and item.id
    assert bob.post(f"/challenges/{second}/decline", {"reason": "later"}).status_code == 200
    (declined,) = mine.events(1)
    assert (declined.type, declined.data["decline_reason"]) == ("challenge_declined", "later")
    assert alice.post(f"/challenges/{pending}/cancel").status_code == 200
    (canceled,) = theirs.events(1)
    assert (canceled.type, canceled.data["id"]) == ("challenge_canceled", pending)
    theirs.close()
    mine.close()


def test_last_event_id_resumes_without_loss(asgi: Server, alice: Player, bob: Player) -> None:
    stream = Stream(asgi.port, ME, _bearer(bob.token))
    stream.events(1)
    first = _challenge(alice, bob)
    (seen,) = stream.events(1)
    stream.close()
    missed = [_challenge(alice, bob), _challenge(alice, bob)]
    resumed = Stream(asgi.port, ME, _bearer(bob.token) | {"Last-Event-ID": str(seen.id)})
    items = resumed.events(2)
    assert [i.data["id"] for i in items] == missed and seen.data["id"] == first
    assert all(i.type == "challenge" for i in items)  # no snapshot: nothing was lost
    resumed.close()
    unknown = Stream(asgi.port, ME, _bearer(bob.token) | {"Last-Event-ID": "1-0"})
    assert unknown.events(1)[0].type == "snapshot"  # older than the log: start over
    unknown.close()
    bad = Stream(asgi.port, ME, _bearer(bob.token) | {"Last-Event-ID": "yesterday"})
    assert (bad.status, bad.body()["code"]) == (400, "validation_error")
    future = Stream(asgi.port, ME, _bearer(bob.token) | {"Last-Event-ID": "99999999999999-0"})
    assert future.events(1)[0].type == "snapshot"  # newer than the log: start over
    future.close()


@pytest.mark.parametrize(
    "last",
    [
        "18446744073709551615-18446744073709551615",
        "18446744073709551616-0",
        "0-18446744073709551616",
    ],
)
def test_an_id_redis_cannot_read_after_is_refused_before_the_stream_opens(
    asgi: Server, bob: Player, last: str
) -> None:
    """Beyond Redis' 64-bit parts (or the last id it can number) XRANGE fails: once after the
    200 headers, it broke the stream; now a 400 before it opens, header or query alike."""
    for headers, query in (({"Last-Event-ID": last}, ""), ({}, f"?last_event_id={last}")):
        bad = Stream(asgi.port, ME + query, _bearer(bob.token) | headers)
        assert (bad.status, bad.body()["code"]) == (400, "validation_error")


def test_a_stream_needs_the_read_scope(asgi: Server, alice: Player) -> None:
    secret = token_issue(alice.user, name="challenges only", scopes=["challenge"])[1]
    refused = Stream(asgi.port, ME, _bearer(secret))
    assert (refused.status, refused.body()["code"]) == (403, "insufficient_scope")
    assert alice.post("/accounts/stream-ticket", {"streams": ["me"]}).status_code == 200
    limited = APIClient()
    limited.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    ticket = limited.post("/api/v1/accounts/stream-ticket", {"streams": ["me"]}, format="json")
    assert (ticket.status_code, ticket.json()["code"]) == (403, "insufficient_scope")


def test_a_stream_ends_with_its_own_token_only(asgi: Server, alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob])
    other = token_issue(alice.user, name="laptop")[1]
    phone = Stream(asgi.port, f"/api/v1/matches/{match_id}/stream", _bearer(alice.token))
    laptop = Stream(asgi.port, ME, _bearer(other))
    phone.events(1)
    laptop.events(1)
    tokens = alice.get("/accounts/me/tokens").json()
    tests_token = next(t["id"] for t in tokens if t["name"] == "tests")
    assert alice.client.delete(f"/api/v1/accounts/me/tokens/{tests_token}").status_code == 204
    assert _ends_within(phone, 5) < 5
    assert laptop.quiet(1.0) == []  # still open: its token stands
    assert bob.move(match_id, 1, {"card": 2}).status_code == 202
    laptop.close()


def test_a_stream_ends_when_its_token_expires(asgi: Server, alice: Player) -> None:
    made, secret = token_issue(alice.user, name="brief", expires_in=timedelta(minutes=1))
    AccessToken.objects.filter(pk=made.pk).update(expires_at=timezone.now() + timedelta(seconds=2))
    stream = Stream(asgi.port, ME, _bearer(secret))
    stream.events(1)
    began = time.monotonic()
    _ends_within(stream, 6)
    assert time.monotonic() - began < 5


def test_a_bot_account_sees_its_seat_as_a_person_would(asgi: Server, alice: Player) -> None:
    robot = make_player("robot", bot=True)
    match_id = start_match("gops", [alice, robot])
    stream = Stream(asgi.port, f"/api/v1/matches/{match_id}/stream", _bearer(robot.token))
    (snapshot,) = stream.events(1)
    assert snapshot.data == robot.match(match_id)
    assert alice.move(match_id, 1, {"card": 7}).status_code == 202
    (item,) = stream.events(1)
    assert item.type == "move_submitted" and "card" not in keys_in(item.data)
    stream.close()
