"""core.throttling.ReservedCounts: a process reserves ranges of a throttle window's counts in the
shared counter and hands them out itself. Against the real Redis; "processes" are separate
ReservedCounts objects (each a process's state), threads are real threads, and in the last test
the processes are real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches

from core import throttling
from core.cache import RedisCache
from core.throttling import LEASE_LARGEST, FailSafeCounters, ReservedCounts

pytestmark = pytest.mark.skipif(
    not isinstance(caches["default"], RedisCache),
    reason="needs REDIS_URL (the Redis cache backend)",
)
ROOT = Path(__file__).resolve().parents[2]


class CountingCounters(FailSafeCounters):
    """The real counters, noting each round trip to the shared cache (and slowing it down,
    to let threads meet in it)."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__()
        self.round_trips = 0
        self.delay = delay

    def reserve_many(self, slots: Any) -> dict[str, tuple[int, int]]:
        self.round_trips += 1
        if self.delay:
            time.sleep(self.delay)
        return super().reserve_many(slots)


def window_key() -> str:
    return f"test-lease-{uuid.uuid4().hex}"


def slot(key: str, limit: int, ends: float | None = None) -> throttling.Slot:
    return key, 30, limit, time.time() + 30 if ends is None else ends


def shared_count(key: str) -> int:
    return int(caches["default"].get(key) or 0)


def test_a_small_limit_is_counted_in_the_shared_cache_request_by_request() -> None:
    counts = CountingCounters()
    process = ReservedCounts(counts)
    key = window_key()
    taken = [process.take([slot(key, 16)])[key] for _ in range(18)]
    assert taken == list(range(1, 19))
    assert counts.round_trips == 18
    assert shared_count(key) == 18
    assert not process._ranges  # nothing kept for a limit that never gets a range


def test_a_large_limit_costs_a_round_trip_per_range_not_per_request() -> None:
    counts = CountingCounters()
    process = ReservedCounts(counts)
    key = window_key()
    taken = [process.take([slot(key, 1000)])[key] for _ in range(50)]
    assert taken == list(range(1, 51))  # one process alone: the counts in order, none skipped
    assert counts.round_trips == -(-50 // LEASE_LARGEST)  # 4 ranges of 16
    assert shared_count(key) == counts.round_trips * LEASE_LARGEST


def test_two_processes_never_hand_out_the_same_count_nor_pass_the_limit() -> None:
    limit = 100
    first, second = ReservedCounts(CountingCounters()), ReservedCounts(CountingCounters())
    key = window_key()
    taken: list[int] = []
    for n in range(160):
        process = first if n % 3 else second
        taken.append(process.take([slot(key, limit)])[key])
    assert len(set(taken)) == len(taken)  # unique across processes
    admitted = [count for count in taken if count <= limit]
    assert len(admitted) <= limit
    # Refused early only by what the other process held unused: under one range.
    assert len(admitted) >= limit - (LEASE_LARGEST - 1)


def test_a_range_takes_at_most_an_eighth_of_what_is_left_now() -> None:
    counts = CountingCounters()
    process = ReservedCounts(counts)
    key = window_key()
    caches["default"].set(key, 60, 30)  # other processes have counted 60 of 80
    assert process.take([slot(key, 80)])[key] == 61  # (80 - 60) // 8 = 2 reserved: 61, 62
    assert shared_count(key) == 62
    assert process.take([slot(key, 80)])[key] == 62  # from the range, no round trip
    assert counts.round_trips == 1
    caches["default"].set(key, 75, 30)  # others went on counting
    assert process.take([slot(key, 80)])[key] == 76  # 5 left: one count
    assert shared_count(key) == 76


def test_every_slot_of_a_request_in_one_round_trip() -> None:
    counts = CountingCounters()
    process = ReservedCounts(counts)
    user, scope = window_key(), window_key()
    for n in range(1, 4):
        assert process.take([slot(user, 1000), slot(scope, 5)]) == {user: n, scope: n}
    # user: one range; scope: its limit is too small, counted each time, with user's at first.
    assert counts.round_trips == 3
    assert shared_count(user) == LEASE_LARGEST and shared_count(scope) == 3


def test_threads_of_one_process_never_replace_each_others_range() -> None:
    """While one thread reserves a window's range, the others reserve one count each: no range
    is lost, so the window's count is what was handed out plus at most one range's rest."""
    counts = CountingCounters(delay=0.005)
    process = ReservedCounts(counts)
    key = window_key()
    taken: list[int] = []
    lock = threading.Lock()

    def requests() -> None:
        for _ in range(40):
            count = process.take([slot(key, 100_000)])[key]
            with lock:
                taken.append(count)

    threads = [threading.Thread(target=requests) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(taken) == 320 and len(set(taken)) == 320
    assert shared_count(key) - len(taken) < LEASE_LARGEST  # only the last range's rest unused


def test_ranges_end_with_their_window_and_their_number_is_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    process = ReservedCounts(CountingCounters())
    ended, current = window_key(), window_key()
    process.take([slot(ended, 1000, ends=time.time() + 1)])
    assert ended in process._ranges
    later = time.time() + 2 * throttling.LEASE_PRUNE_INTERVAL
    real_time = time.time
    monkeypatch.setattr(throttling.time, "time", lambda: later)
    process.take([slot(current, 1000, ends=later + 60)])
    monkeypatch.setattr(throttling.time, "time", real_time)
    assert ended not in process._ranges and current in process._ranges
    # A full table keeps no new window: those are counted request by request.
    monkeypatch.setattr(throttling, "LEASE_MAX_WINDOWS", 1)
    crowd = window_key()
    assert [process.take([slot(crowd, 1000)])[crowd] for _ in range(3)] == [1, 2, 3]
    assert crowd not in process._ranges and shared_count(crowd) == 3


_WORKER = """
import json, sys, time
import django
django.setup()
from core.throttling import ReservedCounts
key, limit, requests, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
process = ReservedCounts()
time.sleep(max(0.0, start - time.time()))  # all three count at once
ends = time.time() + 60
print(json.dumps([process.take([(key, 60, limit, ends)])[key] for _ in range(requests)]))
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
