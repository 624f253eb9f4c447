"""The streams and the long-poll on real uvicorn processes (config.asgi), with the real Redis
bus: moves are committed by this process through the API, the servers hear of them only
through Redis, and each stream must say exactly what ``GET /events`` says to its reader."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any
from unittest import mock

import pytest
from django.core import signing

from live.bus import bus
from tests.leaks import keys_in
from tests.live.client import KEEPALIVE, Stream
from tests.live.conftest import KEEPALIVE_SECONDS, Server
from tests.players import Player, start_match

pytestmark = pytest.mark.usefixtures("transactional_db")


def _token(player: Player) -> dict[str, str]:
    return {"Authorization": f"Token {player.token}"}


def _stream(server: Server, player: Player | None, match_id: str, **kw: Any) -> Stream:
    headers = _token(player) if player is not None else {}
    headers |= kw.pop("headers", {})
    query = kw.pop("query", "")
    return Stream(server.port, f"/api/v1/matches/{match_id}/stream{query}", headers, **kw)


def _feed(player: Player, match_id: str, after: int = 0) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = player.events(match_id, after)["results"]
    return results


def test_two_players_see_submissions_then_the_reveal(asgi: Server, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    streams = {p.name: _stream(asgi, p, match_id) for p in (alice, bob)}
    for player in (alice, bob):
        stream = streams[player.name]
        assert stream.status == 200 and stream.content_type.startswith("text/event-stream")
        (snapshot,) = stream.events(1)
        assert (snapshot.type, snapshot.id) == ("snapshot", None)
        assert snapshot.data == player.match(match_id)  # exactly the match resource
    assert alice.move(match_id, 1, {"card": 7}).status_code == 202
    for stream in streams.values():
        (item,) = stream.events(1)
        assert item.type == "move_submitted" and item.data["data"] == {"seat": 0}
        assert "card" not in keys_in(item.data)
    assert bob.move(match_id, 1, {"card": 2}).status_code == 202
    for player in (alice, bob):
        items = streams[player.name].events(3)
        seen = [item.data for item in items]
        assert [i.id for i in items] == [e["seq"] for e in seen]
        assert [i.type for i in items] == ["move_submitted", "step_resolved", "step_opened"]
        assert seen[1]["data"]["bids"] == [7, 2]
        # Each stream says exactly what the event feed says to its reader.
        assert seen == _feed(player, match_id)[-3:]
    for stream in streams.values():
        stream.close()


def test_undisclosed_submission_shows_nothing_until_the_step_resolves(
    asgi: Server, alice: Player, bob: Player, carol: Player
):
    match_id = start_match("gops", [alice, bob], disclose_submitted=False)
    bobs, carols = _stream(asgi, bob, match_id), _stream(asgi, carol, match_id)
    bobs.events(1), carols.events(1)
    assert alice.move(match_id, 1, {"card": 9}).status_code == 202
    assert bobs.quiet(3 * KEEPALIVE_SECONDS) == []  # keep-alives only
    assert carols.quiet(KEEPALIVE_SECONDS) == []
    assert bob.move(match_id, 1, {"card": 4}).status_code == 202
    for stream, viewer in ((bobs, bob), (carols, carol)):
        items = stream.events(2)
        assert [i.type for i in items] == ["step_resolved", "step_opened"]
        assert [i.data for i in items] == _feed(viewer, match_id)[-2:]
        stream.close()


def test_spectator_stream_never_carries_a_hidden_value(
    asgi: Server, alice: Player, bob: Player, carol: Player
):
    match_id = start_match("gops", [alice, bob])
    spectator = _stream(asgi, carol, match_id, ndjson=True)
    (snapshot,) = spectator.events(1)
    assert snapshot.data == carol.match(match_id) and snapshot.data["you"] is None
    cards = {1: (11, 3), 2: (5, 12)}
    for step, (a, b) in cards.items():
        assert alice.move(match_id, step, {"card": a}).status_code == 202
        (submitted,) = spectator.events(1)
        assert "card" not in keys_in(submitted.data), submitted
        assert bob.move(match_id, step, {"card": b}).status_code == 202
        items = spectator.events(3)
        assert [i.data for i in items] == _feed(carol, match_id)[-3:]
    spectator.close()


def test_reconnect_with_last_event_id_loses_and_repeats_nothing(
    asgi: Server, alice: Player, bob: Player
):
    match_id = start_match("gops", [alice, bob])
    first = _stream(asgi, bob, match_id)
    first.events(1)
    assert alice.move(match_id, 1, {"card": 1}).status_code == 202
    (seen,) = first.events(1)
    first.close()
    # While nobody listens: a whole step, and half of the next.
    assert bob.move(match_id, 1, {"card": 1}).status_code == 202
    assert alice.move(match_id, 2, {"card": 2}).status_code == 202
    resumed = _stream(asgi, bob, match_id, headers={"Last-Event-ID": str(seen.id)})
    missed = _feed(bob, match_id, after=seen.id or 0)
    items = resumed.events(len(missed))
    assert [i.data for i in items] == missed  # no snapshot, nothing lost or repeated
    # Events go on arriving live after the backlog, once each.
    assert bob.move(match_id, 2, {"card": 3}).status_code == 202
    live = resumed.events(3)
    assert [i.id for i in live] == [e["seq"] for e in _feed(bob, match_id, after=items[-1].id or 0)]
    assert resumed.quiet(KEEPALIVE_SECONDS) == []
    resumed.close()
    # The query parameter does the same (for clients that cannot set the header).
    again = _stream(asgi, bob, match_id, query=f"?last_event_id={seen.id}")
    assert [i.data for i in again.events(len(missed) + 3)] == _feed(bob, match_id, seen.id or 0)
    again.close()


def test_ndjson_format_and_keepalive(asgi: Server, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    stream = _stream(asgi, alice, match_id, ndjson=True)
    assert stream.content_type == "application/x-ndjson"
    (snapshot,) = stream.events(1)
    assert snapshot.id is None and snapshot.data["id"] == match_id
    assert stream.next(3 * KEEPALIVE_SECONDS) is KEEPALIVE  # an empty line
    assert alice.move(match_id, 1, {"card": 4}).status_code == 202
    (item,) = stream.events(1)
    assert (item.type, item.id) == ("move_submitted", item.data["seq"])
    stream.close()


def test_errors_are_problems(asgi: Server, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    cases = [
        (None, match_id, "", 401, "not_authenticated"),
        (alice, "00000000-0000-0000-0000-000000000000", "", 404, "not_found"),
        (alice, "not-a-match", "", 404, "not_found"),
        (alice, match_id, "?last_event_id=x", 400, "validation_error"),
    ]
    for player, target, query, status, code in cases:
        stream = _stream(asgi, player, target, query=query)
        assert stream.status == status
        assert stream.content_type == "application/problem+json"
        assert stream.body()["code"] == code
        stream.close()


def test_problems_follow_the_readers_profile_language(asgi: Server, alice: Player, bob: Player):
    """As the API's: the profile of a signed-in reader, else ``Accept-Language``."""
    alice.user.language = "de"
    alice.user.save(update_fields=["language"])
    missing = "00000000-0000-0000-0000-000000000000"
    cases = [
        (alice, "en", f"/matches/{missing}/stream", "Keine Partie mit dieser ID."),
        (alice, "en", f"/tournaments/{missing}/stream", "Kein solches Turnier."),
        (bob, "de", f"/matches/{missing}/stream", "Keine Partie mit dieser ID."),
        (bob, "en", f"/matches/{missing}/stream", "No match with this id."),
        (None, "de", f"/matches/{missing}/stream", "Anmeldedaten fehlen."),
    ]
    for player, accept, path, detail in cases:
        headers = {**(_token(player) if player else {}), "Accept-Language": accept}
        stream = Stream(asgi.port, f"/api/v1{path}", headers)
        assert stream.content_type == "application/problem+json"
        assert stream.body()["detail"] == detail, (player, accept, path)
        assert stream.response.getheader("Content-Language") == detail_language(detail)
        stream.close()


def detail_language(detail: str) -> str:
    return "en" if detail.startswith("No ") else "de"


def test_tickets_open_the_streams_they_name_for_a_minute(asgi: Server, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    other_id = start_match("gops", [alice, bob])
    answer = alice.post("/accounts/stream-ticket", {"streams": [f"match:{match_id}", "me"]})
    assert answer.status_code == 200, answer.content
    ticket = answer.json()["ticket"]
    for _ in range(2):  # opening, and re-opening as EventSource does
        stream = _stream(asgi, None, match_id, query=f"?ticket={ticket}")
        (snapshot,) = stream.events(1)
        assert snapshot.data == alice.match(match_id)  # alice's view, with her hand
        stream.close()
    wrong = _stream(asgi, None, other_id, query=f"?ticket={ticket}")
    assert (wrong.status, wrong.body()["code"]) == (403, "permission_denied")
    me = Stream(asgi.port, f"/api/v1/accounts/me/stream?ticket={ticket}")
    assert me.status == 200
    me.close()
    with mock.patch("time.time", return_value=time.time() - 61):
        old = alice.post("/accounts/stream-ticket", {"streams": [f"match:{match_id}"]})
    expired = _stream(asgi, None, match_id, query=f"?ticket={old.json()['ticket']}")
    assert (expired.status, expired.body()["code"]) == (401, "not_authenticated")
    forged = signing.dumps({"u": alice.user.pk, "s": [f"match:{match_id}"]}, salt="other")
    bad = _stream(asgi, None, match_id, query=f"?ticket={forged}")
    assert bad.status == 401
    refused = alice.post("/accounts/stream-ticket", {"streams": ["match:nope"]})
    assert refused.status_code == 400
    unauthenticated = Player(alice.user, "0" * 40).post("/accounts/stream-ticket", {})
    assert unauthenticated.status_code == 401


def _long_poll(server: Server, player: Player, match_id: str, query: str) -> tuple[int, Any, float]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/api/v1/matches/{match_id}/events{query}",
        headers=_token(player),
    )
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=40) as response:
            return response.status, json.loads(response.read()), time.monotonic() - began
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), time.monotonic() - began


def test_long_poll_answers_early_or_times_out(asgi: Server, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    last = alice.events(match_id)["last_seq"]
    status, page, took = _long_poll(asgi, bob, match_id, f"?after={last}&wait=1")
    assert (status, page["results"]) == (200, []) and 0.9 <= took < 3
    mover = threading.Timer(0.5, lambda: alice.move(match_id, 1, {"card": 6}))
    mover.start()
    status, page, took = _long_poll(asgi, bob, match_id, f"?after={last}&wait=20")
    mover.join()
    assert status == 200 and took < 5
    assert [e["type"] for e in page["results"]] == ["move_submitted"]
    assert page["results"] == _feed(bob, match_id, last)
    status, page, took = _long_poll(asgi, bob, match_id, "?after=0&wait=20")
    assert status == 200 and page["results"] and took < 2  # events already there: at once
    for bad in ("31", "-1", "x"):
        status, problem, _ = _long_poll(asgi, bob, match_id, f"?after={last}&wait={bad}")
        assert (status, problem["code"]) == (400, "validation_error")


def test_user_stream_across_matches_and_processes(
    asgi_servers: list[Server], alice: Player, bob: Player
):
    one, two = start_match("gops", [alice, bob]), start_match("gops", [bob, alice])
    streams = [
        Stream(server.port, "/api/v1/accounts/me/stream", _token(alice), ndjson=ndjson)
        for server, ndjson in zip(asgi_servers, (False, True), strict=True)
    ]
    for stream in streams:
        (snapshot,) = stream.events(1)
        assert snapshot.type == "snapshot"
        assert sorted(snapshot.data["awaiting_me"]) == sorted([one, two])
    notes = [
        {"type": "your_move", "match": one, "at": "2026-01-01T00:00:00Z", "step": 1},
        {"type": "step_resolved", "match": two, "at": "2026-01-01T00:00:01Z", "step": 1},
    ]
    logged = [(alice.user.pk, json.dumps({"type": n["type"], "data": n})) for n in notes]
    bus().account_append(logged)
    bus().account_append([(bob.user.pk, logged[0][1])])
    for stream in streams:
        items = stream.events(2)
        assert [(i.type, i.data) for i in items] == [(n["type"], n) for n in notes]
        assert all(item.id for item in items)  # numbered, to resume from
        assert stream.quiet(KEEPALIVE_SECONDS) == []  # bob's note is bob's
        stream.close()


def test_notifications_of_real_moves_reach_the_user_stream(
    asgi: Server, alice: Player, bob: Player
):
    one, two = start_match("gops", [alice, bob]), start_match("gops", [bob, alice])
    stream = Stream(asgi.port, "/api/v1/accounts/me/stream", _token(alice))
    stream.events(1)
    for match_id in (one, two):
        assert alice.move(match_id, 1, {"card": 1}).status_code == 202
        assert bob.move(match_id, 1, {"card": 2}).status_code == 202
    items = stream.events(4)
    assert [(i.type, i.data["match"]) for i in items] == [
        ("step_resolved", one),
        ("your_move", one),
        ("step_resolved", two),
        ("your_move", two),
    ] or sorted((i.type, i.data["match"]) for i in items) == sorted(
        [("step_resolved", one), ("your_move", one), ("step_resolved", two), ("your_move", two)]
    )
    assert all(i.id and "card" not in keys_in(i.data) for i in items)  # numbered, to resume
    assert stream.quiet(KEEPALIVE_SECONDS) == []  # bob's notifications are bob's
    stream.close()


def test_chat_rides_the_match_stream_without_an_event_id(
    asgi: Server, alice: Player, bob: Player, carol: Player
):
    match_id = start_match("gops", [alice, bob])
    assert bob.post("/chat/mutes", {"player": alice.name}).status_code in (200, 201)
    carols, bobs = _stream(asgi, carol, match_id), _stream(asgi, bob, match_id, ndjson=True)
    alices = _stream(asgi, alice, match_id, ndjson=True)
    for stream in (carols, bobs, alices):
        stream.events(1)  # the snapshot
    said = alice.post(f"/matches/{match_id}/chat", {"text": "good luck"})
    assert said.status_code == 201, said.content
    (line,) = carols.events(1)
    assert (line.type, line.id) == ("chat", None)  # SSE: no id line, Last-Event-ID unchanged
    assert line.data == carol.get(f"/matches/{match_id}/chat").json()["results"][-1]
    (own,) = alices.events(1)
    assert (own.type, own.id, own.data) == ("chat", None, line.data)
    assert bobs.quiet(KEEPALIVE_SECONDS) == []  # bob muted alice before opening his stream
    # Match events keep flowing with their own numbering after the chat line.
    assert alice.move(match_id, 1, {"card": 7}).status_code == 202
    (submitted,) = carols.events(1)
    assert submitted.type == "move_submitted" and submitted.id == _feed(carol, match_id)[-1]["seq"]
    for stream in (carols, bobs, alices):
        stream.close()
