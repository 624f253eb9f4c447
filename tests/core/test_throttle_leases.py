"""core.throttling.Leases: a process reserves ranges of a throttle window's counts in the shared
counter and hands them out itself. Against the real Redis; "processes" are separate Leases
objects (each a process's state) and, in the last test, real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches

from core.cache import RedisCache
from core.throttling import LEASE_LARGEST, FailSafeCounters, Leases

pytestmark = pytest.mark.skipif(
    not isinstance(caches["default"], RedisCache),
    reason="needs REDIS_URL (the Redis cache backend)",
)
ROOT = Path(__file__).resolve().parents[2]


class CountingCounters(FailSafeCounters):
    """The real counters, noting each round trip to the shared cache."""

    def __init__(self) -> None:
        super().__init__()
        self.round_trips = 0

    def incr_many(self, slots: Any, amounts: Any = None) -> dict[str, int]:
        self.round_trips += 1
        return super().incr_many(slots, amounts)


def window_key() -> str:
    return f"test-lease-{uuid.uuid4().hex}"


def shared_count(key: str) -> int:
    return int(caches["default"].get(key) or 0)


def test_a_small_limit_is_counted_in_the_shared_cache_request_by_request() -> None:
    counts = CountingCounters()
    process = Leases(counts)
    key = window_key()
    taken = [process.take([(key, 30, 10)])[key] for _ in range(12)]
    assert taken == list(range(1, 13))
    assert counts.round_trips == 12
    assert shared_count(key) == 12


def test_a_large_limit_costs_a_round_trip_per_range_not_per_request() -> None:
    counts = CountingCounters()
    process = Leases(counts)
    key = window_key()
    taken = [process.take([(key, 30, 1000)])[key] for _ in range(50)]
    assert taken == list(range(1, 51))  # one process alone: the counts in order, none skipped
    # The first reservation is one count (the window's count unknown), then LEASE_LARGEST each.
    assert counts.round_trips == 1 + -(-49 // LEASE_LARGEST)
    assert shared_count(key) == 1 + (counts.round_trips - 1) * LEASE_LARGEST


def test_two_processes_never_hand_out_the_same_count_nor_pass_the_limit() -> None:
    limit = 100
    first, second = Leases(CountingCounters()), Leases(CountingCounters())
    key = window_key()
    taken: list[int] = []
    for n in range(160):
        process = first if n % 3 else second
        taken.append(process.take([(key, 30, limit)])[key])
    assert len(set(taken)) == len(taken)  # unique across processes
    admitted = [count for count in taken if count <= limit]
    assert len(admitted) <= limit
    # Refused early only by what the other process held unused: under one range.
    assert len(admitted) >= limit - (LEASE_LARGEST - 1)


def test_a_range_never_takes_more_than_an_eighth_of_what_is_left() -> None:
    counts = CountingCounters()
    process = Leases(counts)
    key = window_key()
    caches["default"].set(key, 60, 30)  # other processes have counted 60 of 80
    assert process.take([(key, 30, 80)])[key] == 61  # the window unknown here: one count
    assert process.take([(key, 30, 80)])[key] == 62  # (80 - 61) // 8 = 2 reserved
    assert shared_count(key) == 63
    assert process.take([(key, 30, 80)])[key] == 63  # from the range, no round trip
    assert counts.round_trips == 2


def test_every_slot_of_a_request_in_one_round_trip_and_a_new_limit_starts_afresh() -> None:
    counts = CountingCounters()
    process = Leases(counts)
    user, scope = window_key(), window_key()
    for n in range(1, 4):
        assert process.take([(user, 30, 1000), (scope, 30, 5)]) == {user: n, scope: n}
    # user: a range after its first count; scope: its limit is too small, counted each time.
    assert counts.round_trips == 3
    assert shared_count(user) == 1 + LEASE_LARGEST
    # The rate changed (settings): the range reserved under the old limit is not used.
    assert process.take([(user, 30, 2000)]) == {user: 2 + LEASE_LARGEST}


def test_ranges_of_ended_windows_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    import core.throttling as throttling

    process = Leases(CountingCounters())
    old, new = window_key(), window_key()
    process.take([(old, 1, 1000)])
    process.take([(old, 1, 1000)])
    assert old in process._leases
    later = throttling.time.time() + 2 * throttling.LEASE_PRUNE_INTERVAL
    monkeypatch.setattr(throttling.time, "time", lambda: later)
    process.take([(new, 30, 1000)])
    assert old not in process._leases and new in process._leases


_WORKER = """
import json, sys, time
import django
django.setup()
from core.throttling import Leases, FailSafeCounters
key, limit, requests, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
process = Leases(FailSafeCounters())
time.sleep(max(0.0, start - time.time()))  # all three count at once
print(json.dumps([process.take([(key, 60, limit)])[key] for _ in range(requests)]))
"""


def test_real_processes_share_one_limit() -> None:
    """Three processes count one window together: every count unique, the limit never passed,
    and refused early by no more than the others' unused ranges."""
    key, limit, requests = window_key(), 200, 120
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"}
    start = time.time() + 2
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, key, str(limit), str(requests), str(start)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    taken = [count for worker in workers for count in json.loads(worker.communicate(timeout=60)[0])]
    assert all(worker.returncode == 0 for worker in workers)
    assert len(taken) == 3 * requests and len(set(taken)) == len(taken)
    admitted = sum(1 for count in taken if count <= limit)
    assert limit - 2 * (LEASE_LARGEST - 1) <= admitted <= limit
    assert shared_count(key) == max(taken)
