"""/metrics: who may read it, what it counts, and that no label carries an id or a move."""

from __future__ import annotations

import socket
import uuid
from datetime import timedelta
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Match
from tests.clocks import overdue
from tests.observability.scrape import TOKEN, parse, scrape, value
from tests.players import Player, start_match

PROBLEM = "application/problem+json"


@pytest.fixture
def token(settings: Any) -> str:
    settings.FACEDOWN_METRICS_TOKEN = TOKEN
    return TOKEN


def _get(client: APIClient, **meta: str) -> Any:
    return client.get("/metrics", **meta)


def test_metrics_do_not_exist_until_a_reader_is_configured(db, settings):
    settings.FACEDOWN_METRICS_TOKEN = ""
    settings.FACEDOWN_METRICS_NETWORKS = []
    response = _get(APIClient(), HTTP_AUTHORIZATION="Bearer anything")
    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Token {TOKEN}", "Bearer ", f"Bearer {TOKEN}x"],
)
def test_without_the_token_the_answer_is_401(db, token, authorization):
    meta = {"HTTP_AUTHORIZATION": authorization} if authorization is not None else {}
    response = _get(APIClient(), **meta)
    assert response.status_code == 401
    assert response["Content-Type"] == PROBLEM
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response.json()["code"] == "not_authenticated"
    assert b"facedown_" not in response.content


def test_the_token_opens_them(db, token):
    response = _get(APIClient(), HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert b"# TYPE facedown_http_requests_total counter" in response.content


@pytest.mark.parametrize(
    ("hops", "remote", "forwarded", "status"),
    [
        (0, "10.20.30.40", None, 200),  # inside the internal network
        (0, "fd00::7", None, 200),
        (0, "192.0.2.9", None, 403),  # outside
        (0, "192.0.2.9", "10.0.0.5", 403),  # a forged X-Forwarded-For is not believed
        (1, "192.0.2.1", "10.0.0.5", 200),  # through the trusted proxy: its entry counts
        (1, "192.0.2.1", "10.0.0.5, 192.0.2.77", 403),  # the proxy saw an outside client
    ],
)
def test_the_internal_networks_may_read_them(db, settings, hops, remote, forwarded, status):
    settings.FACEDOWN_METRICS_TOKEN = ""
    settings.FACEDOWN_METRICS_NETWORKS = ["10.0.0.0/8", "fd00::/8"]
    settings.FACEDOWN_TRUSTED_PROXY_HOPS = hops
    meta = {"REMOTE_ADDR": remote}
    if forwarded:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    response = _get(APIClient(), **meta)
    assert response.status_code == status
    if status == 403:
        assert response["Content-Type"] == PROBLEM
        assert response.json()["code"] == "permission_denied"


def test_with_both_configured_an_outsider_without_the_token_gets_401(db, settings):
    settings.FACEDOWN_METRICS_TOKEN = TOKEN
    settings.FACEDOWN_METRICS_NETWORKS = ["10.0.0.0/8"]
    assert _get(APIClient(), REMOTE_ADDR="192.0.2.9").status_code == 401
    assert _get(APIClient(), REMOTE_ADDR="10.1.1.1").status_code == 200
    assert (
        _get(APIClient(), REMOTE_ADDR="192.0.2.9", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code
        == 200
    )


def _labels(samples: Any) -> set[str]:
    return {value for (_, labels) in samples for _, value in labels}


def test_requests_are_counted_by_route_name_never_by_path(alice: Player, bob: Player, token):
    match_id = start_match("gops", [alice, bob])
    client = APIClient()
    before = scrape(client)
    for _ in range(3):
        alice.match(match_id)
    missing = f"/api/v1/matches/{uuid.uuid4()}/nothing-here"
    assert alice.client.get(missing).status_code == 404
    after = scrape(client)
    counted = {"route": "match-detail", "method": "GET", "status": "200"}
    assert (
        value(after, "facedown_http_requests_total", **counted)
        - value(before, "facedown_http_requests_total", **counted)
        == 3
    )
    latency = value(
        after, "facedown_http_request_duration_seconds_count", route="match-detail", method="GET"
    )
    assert latency >= 3
    unmatched = {"route": "unmatched", "method": "GET", "status": "404"}
    assert value(after, "facedown_http_requests_total", **unmatched) >= 1
    labels = _labels(after)
    assert not any(match_id in label or "/" in label for label in labels), labels
    assert not {alice.name, bob.name} & labels


def test_moves_and_steps_are_counted_once_committed(
    alice: Player, bob: Player, token, django_capture_on_commit_callbacks, settings
):
    settings.FACEDOWN_TASK_RUNNER = "off"
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    client = APIClient()
    before = scrape(client)
    moves = {"game": "gops", "source": "player"}
    # A refused move rolls back: nothing is counted.
    with django_capture_on_commit_callbacks(execute=True):
        assert alice.move(match_id, 1, {"card": 99}).status_code == 400
    assert value(scrape(client), "facedown_moves_accepted_total", **moves) == value(
        before, "facedown_moves_accepted_total", **moves
    )
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        for player in (alice, bob):
            legal = player.match(match_id)["legal_moves"][0]
            assert player.move(match_id, 1, legal).status_code == 202
    assert callbacks  # the counting ran on commit, after the change's transaction
    after = scrape(client)
    delta = value(after, "facedown_moves_accepted_total", **moves) - value(
        before, "facedown_moves_accepted_total", **moves
    )
    assert delta == 2
    steps = value(after, "facedown_steps_resolved_total", game="gops") - value(
        before, "facedown_steps_resolved_total", game="gops"
    )
    assert steps == 1


def test_the_oldest_overdue_deadline_and_the_bot_lag(alice: Player, bob: Player, token, settings):
    settings.FACEDOWN_TASK_RUNNER = "off"  # nothing expires or plays behind the test's back
    timed = start_match("gops", [alice, bob], time_control={"per_step_seconds": 60})
    overdue(timed, by=timedelta(seconds=40))
    created = alice.create("gops", ["me", {"bot": "random"}])
    assert created.status_code == 201, created.content
    bot_match = created.json()["id"]
    Match.objects.filter(pk=bot_match).update(step_opened_at=timezone.now() - timedelta(seconds=25))
    samples = scrape(APIClient())
    assert 40 <= value(samples, "facedown_overdue_deadline_oldest_seconds") < 60
    assert 25 <= value(samples, "facedown_bot_task_lag_seconds") < 45
    assert value(samples, "facedown_metrics_source_up", source="database") == 1
    # Once the bot has moved, its seat waits no more.
    from games.services.bot_seats import bot_moves_play

    assert bot_moves_play(match_id=bot_match, step=1) == 1
    assert value(scrape(APIClient()), "facedown_bot_task_lag_seconds") == 0


def test_the_queue_depth_counts_every_priority_list(db, token, settings):
    queue = f"facedown-test-{uuid.uuid4().hex}"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    broker = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    keys = [queue, f"{queue}\x06\x163"]
    try:
        broker.rpush(keys[0], "a", "b")
        broker.rpush(keys[1], "c")
        samples = scrape(APIClient())
        assert value(samples, "facedown_task_queue_depth", queue=queue) == 3
        assert value(samples, "facedown_metrics_source_up", source="broker") == 1
    finally:
        broker.delete(*keys)


def test_the_oldest_task_s_age_comes_from_its_publish_stamp(db, token, settings):
    """A task published through Celery carries its publish time (``before_task_publish``);
    the queue's oldest waiting task's age reads it from the broker."""
    import json
    import time

    from config.celery import app
    from observability.collector import PUBLISHED_HEADER, queue_oldest_age

    queue = f"facedown-test-{uuid.uuid4().hex}"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    url = django_settings.CELERY_BROKER_URL
    broker = redis.Redis.from_url(url)
    try:
        assert queue_oldest_age(url, queue) is None
        before = time.time()
        app.send_task("facedown.test.never_run", queue=queue)
        app.send_task("facedown.test.never_run", queue=queue)
        stamps = [
            json.loads(raw)["headers"][PUBLISHED_HEADER] for raw in broker.lrange(queue, 0, -1)
        ]
        assert len(stamps) == 2 and before <= min(stamps) <= time.time()
        assert queue_oldest_age(url, queue, now=min(stamps) + 30) == pytest.approx(30)
        samples = scrape(APIClient())
        assert 0 <= value(samples, "facedown_task_queue_oldest_seconds", queue=queue) < 10
    finally:
        broker.delete(queue)


def test_a_broker_that_does_not_answer_leaves_the_scrape_working(db, token, settings):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{port}/0"
    samples = scrape(APIClient())
    assert value(samples, "facedown_metrics_source_up", source="broker") == 0
    assert value(samples, "facedown_metrics_source_up", source="database") == 1
    assert not any(name == "facedown_task_queue_depth" for name, _ in samples)


def test_the_exposition_parses(db, token):
    text = APIClient().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    names = {name for name, _ in parse(text)}
    assert {
        "facedown_http_requests_total",
        "facedown_overdue_deadline_oldest_seconds",
        "facedown_bot_task_lag_seconds",
        "facedown_metrics_source_up",
    } <= names
