"""The request id travels from the web request into the Celery task it caused, and the worker
logs it (as one JSON object per line with ``LOG_FORMAT=json``); the worker serves the moves its
bots made as metrics of its own."""

from __future__ import annotations

import json
import urllib.request

import pytest

from games.models import Move
from tests.faults.conftest import free_port, wait_for
from tests.observability.scrape import parse, value
from tests.players import make_player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _lines(output: str) -> list[dict]:
    entries = []
    for line in output.splitlines():
        if line.startswith("{"):
            entries.append(json.loads(line))
    return entries


def test_a_bot_task_logs_the_request_id_of_the_request_that_caused_it(
    own_redis, start_worker_process, celery_to, monkeypatch
):
    monkeypatch.setenv("LOG_FORMAT", "json")
    monkeypatch.setenv("FACEDOWN_WORKER_SWEEPS", "0")  # only the request's task moves the bot
    metrics_port = free_port()
    monkeypatch.setenv("FACEDOWN_WORKER_METRICS_PORT", str(metrics_port))
    worker = start_worker_process(own_redis)
    alice = make_player("alice")
    with celery_to(own_redis.url):
        created = alice.create("gops", ["me", {"bot": "random"}], options={"num_cards": 3})
    assert created.status_code == 201, created.content
    rid = created["X-Request-ID"]
    match_id = created.json()["id"]
    wait_for(
        lambda: Move.objects.filter(match_id=match_id, step=1, source="bot").exists(),
        15,
        "the bot's move",
        worker.output,
    )
    wait_for(lambda: "succeeded" in worker.output(), 5, "the task's end", worker.output)
    mine = [e for e in _lines(worker.output()) if e.get("request_id") == rid]
    messages = [e["message"] for e in mine]
    assert any(
        m.startswith("task games.tasks.bot_moves_task started (request " + rid) for m in messages
    ), worker.output()
    # Celery's own line for the task carries it too, and so does the end of the task.
    assert any("succeeded" in m for m in messages), worker.output()
    assert any(m.startswith("task games.tasks.bot_moves_task success") for m in messages)
    # Lines outside the task (start-up) carry none.
    assert any(
        e.get("request_id") == "-" and "ready." in e["message"] for e in _lines(worker.output())
    )

    # The bot's move was counted where it was made, and the worker serves it.
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as answer:
        samples = parse(answer.read().decode())
    assert value(samples, "facedown_moves_accepted_total", game="gops", source="bot") == 1
