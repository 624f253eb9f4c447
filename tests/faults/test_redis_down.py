"""Redis (broker and cache) stops in the middle of play, then comes back.

While it is down: reads answer, moves are accepted (202), stored and resolved (the step
resolution is in PostgreSQL), a match is created (201) and a keyed create is not doubled; the
follow-up jobs that could not be published are logged (ids only) and wait. When it is back,
the sweep, as every worker runs it, catches up: the waiting bot moves, the overdue deadline
expires. Nothing is lost or doubled: every move is audited against an engine replay."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from rest_framework.views import APIView

from config.celery import worker_sweep
from games.models import Match, Move
from tests.clocks import overdue
from tests.faults.conftest import audit
from tests.players import Player, make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _move(player: Player, match_id: str, accepted: list[tuple[str, int, int]]) -> dict[str, Any]:
    """``player`` plays its first legal move in ``match_id``; the move must be accepted."""
    seen = player.match(match_id)
    seat = seen["you"]
    answer = player.move(match_id, seen["step"], seen["legal_moves"][0])
    assert answer.status_code == 202, answer.content
    accepted.append((match_id, seen["step"], seat))
    return seen


def _to_the_end(players: list[Player], match_id: str, accepted: list[Any]) -> None:
    for _ in range(60):
        if Match.objects.get(pk=match_id).status != Match.Status.ACTIVE:
            return
        for player in players:
            if player.match(match_id)["legal_moves"]:
                _move(player, match_id, accepted)
        worker_sweep()  # the worker's part: bot seats (stall 0 s here) and deadlines
    raise AssertionError("match did not end")


def test_play_goes_on_while_redis_is_down_and_catches_up_after(
    own_redis, celery_to, settings, monkeypatch, caplog
):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": own_redis.url,
        }
    }
    # Throttles keep their counters in Redis; failing open is another change's, so off here.
    monkeypatch.setattr(APIView, "get_throttles", lambda self: [])
    settings.FACEDOWN_BOT_STALL_SECONDS = 0
    alice, bob = make_player("alice"), make_player("bob")
    accepted: list[tuple[str, int, int]] = []

    with celery_to(own_redis.url):
        timed = start_match(
            "gops",
            [alice, bob],
            options={"num_cards": 5},
            time_control={"per_step_seconds": 60, "on_timeout": "auto_move"},
        )
        botted = alice.create("gops", ["me", {"bot": "random"}], options={"num_cards": 4})
        assert botted.status_code == 201
        botted_id = botted.json()["id"]

        own_redis.stop()
        caplog.set_level(logging.WARNING, logger="games.dispatch")

        # reads
        assert alice.get("/games").status_code == 200
        assert alice.get(f"/matches/{timed}").status_code == 200
        assert alice.get("/matches").status_code == 200
        # moves: both seats move, the step resolves in PostgreSQL, twice
        for _ in range(2):
            _move(alice, timed, accepted)
            _move(bob, timed, accepted)
        assert Match.objects.get(pk=timed).step == 3
        # a move against the bot is accepted; the bot waits for the broker or the sweep
        _move(alice, botted_id, accepted)
        assert Match.objects.get(pk=botted_id).step == 1
        # a keyed create answers 201 once, and its retry replays it
        body = {"game": "gops", "seats": ["me", {"bot": "greedy"}], "options": {"num_cards": 3}}
        first = alice.post("/matches", body, HTTP_IDEMPOTENCY_KEY="down-1")
        again = alice.post("/matches", body, HTTP_IDEMPOTENCY_KEY="down-1")
        assert (first.status_code, again.status_code) == (201, 201), first.content
        assert again.json()["id"] == first.json()["id"]
        assert Match.objects.filter(created_by=alice.user).count() == 3
        # the deadline passes while Redis is down: it waits too
        overdue(timed, by=timedelta(seconds=1))
        assert Match.objects.get(pk=timed).step == 3

        published = [r.getMessage() for r in caplog.records if r.name == "games.dispatch"]
        assert published and all("the sweep will do it" in line for line in published)
        assert not any('"card"' in line or "'card'" in line for line in published)

        own_redis.start()
        worker_sweep()  # what every worker runs each FACEDOWN_SWEEP_SECONDS
        assert Match.objects.get(pk=timed).step == 4  # the overdue step expired, once
        assert Move.objects.filter(match_id=timed, step=3, source="timeout").count() == 2
        assert Match.objects.get(pk=botted_id).step == 2  # the bot caught up

        _to_the_end([alice, bob], timed, accepted)
        _to_the_end([alice], botted_id, accepted)
        _to_the_end([alice], first.json()["id"], accepted)

    assert audit(accepted) == []
