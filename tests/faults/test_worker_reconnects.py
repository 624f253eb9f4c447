"""A real worker process survives a Redis restart while it holds a pending deadline (ETA)
task, and the deadline still expires, exactly once. With Celery 5.7.0 the worker exited here
("Unrecoverable error: AttributeError: 'NoneType' object has no attribute 'hostname'")."""

from __future__ import annotations

import pytest
from django.utils import timezone

from games.models import Match, MatchEvent, Move
from tests.faults.conftest import wait_for
from tests.players import make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _timed_out(match_id: str, step: int) -> list[int]:
    events = MatchEvent.objects.filter(match_id=match_id, type="timeout", step=step)
    return sorted(event.data["seat"] for event in events)


def test_worker_survives_a_redis_restart_holding_a_deadline_task(
    own_redis, start_worker_process, celery_to
):
    worker = start_worker_process(own_redis)
    alice, bob = make_player("alice"), make_player("bob")
    with celery_to(own_redis.url):
        match_id = start_match(
            "gops",
            [alice, bob],
            options={"num_cards": 5},
            # Long enough for a loaded machine to get the ETA task to the worker before it is due.
            time_control={"per_step_seconds": 5, "on_timeout": "auto_move"},
        )
        deadline = Match.objects.get(pk=match_id).deadline
    # the worker has the step's ETA task in hand (received, not yet due)
    wait_for(
        lambda: "step_expire_task" in worker.output().partition("ready.")[2],
        10,
        "the deadline task",
        worker.output,
    )
    own_redis.stop()
    assert timezone.now() < deadline, "the restart must begin while the deadline task waits"
    assert Match.objects.get(pk=match_id).step == 1
    wait_for(lambda: "Connection to broker lost" in worker.output(), 10, "the worker to notice")
    own_redis.start()
    wait_for(
        lambda: worker.output().count("Connected to redis") >= 2, 20, "the reconnect", worker.output
    )
    assert worker.alive, worker.output()

    # the deadline expires once, whichever of the ETA task and the worker's sweep gets there
    wait_for(
        lambda: Match.objects.get(pk=match_id).step == 2, 15, "the step to expire", worker.output
    )
    assert worker.alive and "Unrecoverable error" not in worker.output(), worker.output()
    assert _timed_out(match_id, 1) == [0, 1]  # each late seat once
    assert MatchEvent.objects.filter(match_id=match_id, type="step_resolved", step=1).count() == 1
    sources = set(Move.objects.filter(match_id=match_id, step=1).values_list("source", flat=True))
    assert sources == {"timeout"}  # both seats were late: one stand-in move each

    # and it still takes new work after the restart: the next deadline expires too
    wait_for(
        lambda: Match.objects.get(pk=match_id).step >= 3,
        15,
        "the next step to expire",
        worker.output,
    )
    assert _timed_out(match_id, 2) == [0, 1]
    assert worker.alive
