"""A broker that refuses every publish never turns a committed change into an error, and a
keyed request whose change committed keeps its key whatever fails after the commit."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import IdempotencyRecord, Match, Move
from games.services.idempotency import idempotency_claim
from tests.faults.conftest import free_port
from tests.players import make_player, start_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_refusing_broker_still_answers_201_and_202(celery_to, caplog):
    alice, bob = make_player("alice"), make_player("bob")
    with celery_to(f"redis://127.0.0.1:{free_port()}/0"):  # nothing listens there
        created = alice.create(
            "gops",
            ["me", {"bot": "greedy"}],
            options={"num_cards": 3},
            time_control={"per_step_seconds": 30},
        )
        assert created.status_code == 201, created.content
        match_id = start_match("gops", [alice, bob], time_control={"per_step_seconds": 30})
        assert alice.move(match_id, 1, {"card": 1}).status_code == 202
        assert bob.move(match_id, 1, {"card": 2}).status_code == 202
    assert Match.objects.get(pk=match_id).step == 2
    assert Move.objects.filter(match_id=match_id).count() == 2
    refused = [r.getMessage() for r in caplog.records if r.name == "games.dispatch"]
    assert any("bot_moves" in line for line in refused)
    assert any("step_expire" in line for line in refused)


def test_a_failure_after_the_commit_keeps_the_key(settings, monkeypatch):
    settings.FACEDOWN_TASK_RUNNER = "off"
    alice, bob = make_player("alice"), make_player("bob")

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the answer could not be built")

    monkeypatch.setattr("games.api.matches.match_response", crash)
    body = {"game": "gops", "seats": ["me", {"user": bob.name}]}
    with pytest.raises(RuntimeError):
        alice.post("/matches", body, HTTP_IDEMPOTENCY_KEY="after-commit")
    assert Match.objects.count() == 1  # the change committed before the failure

    record = IdempotencyRecord.objects.get(key="after-commit")
    assert (record.completed, record.response_status) == (True, 500)
    match_id = str(Match.objects.get().id)
    assert record.response_body["headers"]["Location"].endswith(match_id)
    # a retry gets the stored answer; it does not create the match again
    claim, stored = idempotency_claim(
        user=alice.user, method="POST", path="/api/v1/matches", key="after-commit", body=body
    )
    assert claim is None and stored is not None and stored.status == 500
    assert Match.objects.count() == 1


def test_a_failure_before_any_commit_releases_the_key(settings, monkeypatch):
    settings.FACEDOWN_TASK_RUNNER = "off"
    alice, bob = make_player("alice"), make_player("bob")

    def crash(**kwargs: Any) -> Any:
        raise RuntimeError("nothing was written")

    monkeypatch.setattr("games.api.matches.match_create", crash)
    body = {"game": "gops", "seats": ["me", {"user": bob.name}]}
    with pytest.raises(RuntimeError):
        alice.post("/matches", body, HTTP_IDEMPOTENCY_KEY="before-commit")
    assert not IdempotencyRecord.objects.filter(key="before-commit").exists()
    monkeypatch.undo()
    assert alice.post("/matches", body, HTTP_IDEMPOTENCY_KEY="before-commit").status_code == 201
