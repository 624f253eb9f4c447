"""With the cache's Redis down, throttled endpoints still answer: counting fails open to the
process. The test starts its own redis-server on a free port and stops only that one."""

from __future__ import annotations

import logging
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from core import throttling
from tests.players import API, start_match

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def own_redis(tmp_path: Any) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = _free_port()
    server = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(url, socket_timeout=0.5).ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield server, url
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=10)


def test_reads_and_moves_answer_normally_while_the_cache_is_down(
    own_redis, settings, monkeypatch, caplog, alice, bob
):
    server, url = own_redis
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    }
    # Low enough that the fallback's counting shows; every scope counted apart.
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "reads": "50/hour", "moves": "50/hour"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    fresh = throttling.FailSafeCounters()
    monkeypatch.setattr(throttling, "counters", fresh)
    monkeypatch.setattr(throttling, "reserved_counts", throttling.ReservedCounts(fresh))
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    assert redis.Redis.from_url(url).dbsize() > 0  # the counters live in our Redis

    server.terminate()
    server.wait(timeout=10)
    caplog.set_level(logging.WARNING, logger="core.throttling")
    started = time.monotonic()
    games = APIClient().get(f"{API}/games")
    assert games.status_code == 200 and games.json()
    seen = alice.match(match_id)
    assert seen["status"] == "active" and seen["legal_moves"]
    moved = alice.move(match_id, seen["step"], seen["legal_moves"][0])
    assert moved.status_code == 202, moved.content
    assert alice.match(match_id)["phase"]["submitted"] == [0]
    assert time.monotonic() - started < 10
    warnings = [r for r in caplog.records if r.name == "core.throttling"]
    assert len(warnings) == 1  # rate-limited: once per process and minute
    assert "Shared cache unreachable" in warnings[0].getMessage()

    # The per-process fallback still limits.
    answers = [alice.get("/matches").status_code for _ in range(50)]
    assert answers[-1] == 429 and answers.count(429) < 10
