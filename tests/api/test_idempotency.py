"""``Idempotency-Key`` on POST (docs/api.md, "Conventions")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import IdempotencyRecord, Match, Move
from games.services.idempotency import request_fingerprint
from tests.players import API, Player, start_match

PROBLEM = "application/problem+json"


def _key(key: str) -> dict[str, str]:
    return {"HTTP_IDEMPOTENCY_KEY": key}


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith(PROBLEM), response["Content-Type"]
    body = response.json()
    assert body["code"] == code
    assert body["status"] == status
    return body


@pytest.fixture
def gops(alice: Player, bob: Player) -> str:
    return start_match("gops", [alice, bob], options={"num_cards": 5})


def _moves_path(match_id: str) -> str:
    return f"/matches/{match_id}/moves"


# -- Replays of stored answers --------------------------------------------------------------------


def test_create_match_is_replayed_with_status_body_and_location(alice: Player, bob: Player):
    body = {"game": "gops", "seats": ["me", {"user": bob.name}]}
    first = alice.post("/matches", body, **_key("create-1"))
    assert first.status_code == 201, first.content
    assert first["Location"].endswith(f"/api/v1/matches/{first.json()['id']}")

    again = alice.post("/matches", body, **_key("create-1"))
    assert again.status_code == 201
    assert again.json() == first.json()
    assert again["Location"] == first["Location"]
    assert again["Content-Type"].startswith("application/json")
    assert Match.objects.count() == 1


def test_move_is_replayed_even_after_the_step_resolved(alice: Player, bob: Player, gops: str):
    first = alice.move(gops, 1, {"card": 3}, **_key("move-1"))
    assert first.status_code == 202, first.content

    again = alice.move(gops, 1, {"card": 3}, **_key("move-1"))
    assert again.status_code == 202
    assert again.json() == first.json()

    assert bob.move(gops, 1, {"card": 2}).status_code == 202  # step 1 resolves
    # Without the key this would be 409 stale_step; with it, the stored answer comes back.
    late = alice.move(gops, 1, {"card": 3}, **_key("move-1"))
    assert late.status_code == 202
    assert late.json() == first.json()
    assert Move.objects.filter(match_id=gops, step=1, seat=0).count() == 1


def test_same_body_in_another_key_order_is_the_same_request(alice: Player, gops: str):
    path = _moves_path(gops)
    first = alice.post(path, {"step": 1, "move": {"card": 4}}, **_key("order"))
    assert first.status_code == 202, first.content
    again = alice.post(path, {"move": {"card": 4}, "step": 1}, **_key("order"))
    assert again.status_code == 202
    assert again.json() == first.json()


def test_a_stored_4xx_is_replayed_even_once_the_request_would_succeed(
    alice: Player, bob: Player, gops: str
):
    # Step 2 is not open yet: 409 wrong_phase, stored under the key.
    early = alice.move(gops, 2, {"card": 5}, **_key("early"))
    refused = _problem(early, 409, "wrong_phase")

    assert alice.move(gops, 1, {"card": 1}).status_code == 202
    assert bob.move(gops, 1, {"card": 1}).status_code == 202
    assert alice.match(gops)["step"] == 2  # the same move would now be accepted …

    replay = alice.move(gops, 2, {"card": 5}, **_key("early"))
    assert _problem(replay, 409, "wrong_phase") == refused  # … but the 409 is replayed
    assert not Move.objects.filter(match_id=gops, step=2).exists()

    # A fresh key is a fresh request.
    assert alice.move(gops, 2, {"card": 5}, **_key("later")).status_code == 202


def test_an_illegal_move_is_replayed_as_400(alice: Player, gops: str):
    first = alice.move(gops, 1, {"card": 99}, **_key("bad"))
    refused = _problem(first, 400, "illegal_move")
    replay = alice.move(gops, 1, {"card": 99}, **_key("bad"))
    assert _problem(replay, 400, "illegal_move") == refused
    assert not Move.objects.filter(match_id=gops).exists()
    record = IdempotencyRecord.objects.get(key="bad")
    assert (record.completed, record.response_status) == (True, 400)


def test_a_server_error_is_not_stored(alice: Player, gops: str, monkeypatch: pytest.MonkeyPatch):
    def crash(**kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("games.api.matches.move_submit", crash)
    with pytest.raises(RuntimeError):
        alice.move(gops, 1, {"card": 2}, **_key("crash"))
    assert not IdempotencyRecord.objects.filter(key="crash").exists()

    monkeypatch.undo()
    retry = alice.move(gops, 1, {"card": 2}, **_key("crash"))
    assert retry.status_code == 202, retry.content


# -- Refusals -------------------------------------------------------------------------------------


def test_same_key_with_a_different_body_is_422(alice: Player, gops: str):
    assert alice.move(gops, 1, {"card": 1}, **_key("k")).status_code == 202
    other = alice.move(gops, 1, {"card": 2}, **_key("k"))
    _problem(other, 422, "idempotency_key_reused")
    moves = Move.objects.filter(match_id=gops, step=1, seat=0)
    assert [m.payload for m in moves] == [{"card": 1}]


def test_same_key_with_a_different_body_on_create_is_422(alice: Player, bob: Player):
    assert alice.create("gops", ["me", {"user": bob.name}], **{}).status_code == 201
    first = alice.post("/matches", {"game": "gops", "seats": ["me", "open"]}, **_key("c"))
    assert first.status_code == 201
    other = alice.post("/matches", {"game": "gops", "seats": ["me", "open", "open"]}, **_key("c"))
    _problem(other, 422, "idempotency_key_reused")
    assert Match.objects.count() == 2


def test_a_request_in_flight_is_409(alice: Player, gops: str):
    body = {"step": 1, "move": {"card": 5}}
    IdempotencyRecord.objects.create(
        user=alice.user,
        method="POST",
        path=API + _moves_path(gops),
        key="flying",
        request_hash=request_fingerprint(body),
        completed=False,
        created_at=timezone.now(),
    )
    answer = alice.post(_moves_path(gops), body, **_key("flying"))
    _problem(answer, 409, "idempotency_in_progress")
    assert not Move.objects.filter(match_id=gops).exists()
    # A different body under the key in flight is still a reused key.
    other = alice.post(_moves_path(gops), {"step": 1, "move": {"card": 4}}, **_key("flying"))
    _problem(other, 422, "idempotency_key_reused")


def test_a_bad_key_is_a_validation_error(alice: Player, gops: str):
    answer = alice.move(gops, 1, {"card": 1}, **_key("x" * 256))
    body = _problem(answer, 400, "validation_error")
    assert "Idempotency-Key" in body["errors"]
    assert not IdempotencyRecord.objects.exists()


# -- Scope and lifetime ---------------------------------------------------------------------------


def test_keys_are_scoped_per_user(alice: Player, bob: Player, gops: str):
    mine = alice.move(gops, 1, {"card": 1}, **_key("shared"))
    theirs = bob.move(gops, 1, {"card": 1}, **_key("shared"))
    assert (mine.status_code, theirs.status_code) == (202, 202)
    assert mine.json()["seat"] == 0
    assert theirs.json()["seat"] == 1
    assert theirs.json()["receipt"] != mine.json()["receipt"]
    assert Move.objects.filter(match_id=gops, step=1).count() == 2


def test_keys_are_scoped_per_path(alice: Player, bob: Player, gops: str):
    created = alice.post("/matches", {"game": "gops", "seats": ["me", "open"]}, **_key("k"))
    assert created.status_code == 201
    # Same key, another path, another body: independent, not 422.
    moved = alice.move(gops, 1, {"card": 1}, **_key("k"))
    assert moved.status_code == 202, moved.content
    # Same key and body on another match's moves path: independent too.
    other = start_match("gops", [alice, bob], options={"num_cards": 5})
    elsewhere = alice.move(other, 1, {"card": 1}, **_key("k"))
    assert elsewhere.status_code == 202, elsewhere.content
    assert elsewhere.json()["receipt"]["match"] == other
    assert IdempotencyRecord.objects.filter(user=alice.user, key="k").count() == 3


def _stored(player: Player, match_id: str, key: str, age: timedelta, body: Any) -> None:
    IdempotencyRecord.objects.create(
        user=player.user,
        method="POST",
        path=API + _moves_path(match_id),
        key=key,
        request_hash=request_fingerprint({"step": 1, "move": {"card": 9}}),  # another body
        completed=True,
        response_status=202,
        response_body={"data": body, "headers": {}},
        created_at=timezone.now() - age,
    )


def test_a_key_older_than_24_hours_is_fresh(alice: Player, gops: str):
    _stored(alice, gops, "old", timedelta(hours=24, minutes=1), {"stale": True})
    answer = alice.move(gops, 1, {"card": 2}, **_key("old"))
    assert answer.status_code == 202, answer.content
    assert answer.json()["receipt"]["seat"] == 0
    assert Move.objects.filter(match_id=gops, step=1, seat=0).exists()
    record = IdempotencyRecord.objects.get(user=alice.user, key="old")
    assert record.request_hash == request_fingerprint({"step": 1, "move": {"card": 2}})
    assert record.response_body["data"] == answer.json()
    # … and the new answer is what the key replays from now on.
    assert alice.move(gops, 1, {"card": 2}, **_key("old")).json() == answer.json()


def test_a_key_younger_than_24_hours_is_still_held(alice: Player, gops: str):
    _stored(alice, gops, "young", timedelta(hours=23, minutes=59), {"stale": True})
    answer = alice.move(gops, 1, {"card": 2}, **_key("young"))
    _problem(answer, 422, "idempotency_key_reused")
    assert not Move.objects.filter(match_id=gops).exists()


def test_a_claim_whose_request_died_is_given_up(alice: Player, gops: str, settings: Any):
    body = {"step": 1, "move": {"card": 5}}
    IdempotencyRecord.objects.create(
        user=alice.user,
        method="POST",
        path=API + _moves_path(gops),
        key="died",
        request_hash=request_fingerprint(body),
        completed=False,
        created_at=timezone.now()
        - timedelta(seconds=settings.FACEDOWN_IDEMPOTENCY_ABANDONED_SECONDS + 1),
    )
    answer = alice.post(_moves_path(gops), body, **_key("died"))
    assert answer.status_code == 202, answer.content
    assert Move.objects.filter(match_id=gops, step=1, seat=0).exists()
