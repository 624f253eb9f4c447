"""config/web_balance.py: a saturated worker that serves more than its share of requests sheds
one keep-alive connection per look; nothing is shed while the workers are even or not
saturated. The whole server: tests/deployment/test_web_server.py."""

from __future__ import annotations

import os

import pytest

from config import web_balance
from config.web_balance import INTERVAL, Balance


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(web_balance, "monotonic", made)
    return made


@pytest.fixture
def balance(clock: Clock) -> Balance:
    made = Balance(1)  # two slots
    made.pids[1] = os.getppid()  # the other worker: a process that is alive
    made.claim()
    return made


def _serve(balance: Balance, requests: int, busy: float) -> int:
    """Answers ``requests`` requests, ``busy`` seconds each, between two looks; how many of them
    closed their connection."""
    return sum(balance.answered(busy) for _ in range(requests))


def _look(balance: Balance, clock: Clock, busy: float = 0.0) -> bool:
    """A quarter of a second later, answers one request (``busy`` seconds): the look."""
    clock.now += INTERVAL
    return balance.answered(busy)


def test_a_saturated_worker_above_its_share_sheds_one_connection_per_look(
    balance: Balance, clock: Clock
) -> None:
    assert not _look(balance, clock)  # the first look only remembers the counts
    assert balance.slot == 0 and balance.pids[0] == os.getpid()
    # 100 requests of 2.5 ms (its thread busy the whole quarter second), the other worker 40:
    # the mean is 70, this one 43% above it. The answer that looked closes its connection...
    _serve(balance, 99, 0.0025)
    balance.counts[1] += 40
    assert _look(balance, clock, 0.0025)
    # ... and no other one until the next look.
    assert _serve(balance, 49, 0.005) == 0
    balance.counts[1] += 20  # 50 against 20, busy all the time: one more
    assert _look(balance, clock, 0.005)


def test_nothing_is_shed_while_the_workers_are_even_or_within_the_margin(
    balance: Balance, clock: Clock
) -> None:
    _look(balance, clock)
    _serve(balance, 49, 0.005)
    balance.counts[1] += 50  # even
    assert not _look(balance, clock, 0.005)
    _serve(balance, 49, 0.005)
    balance.counts[1] += 36  # 50 against 36: +16% over the mean of 43
    assert not _look(balance, clock, 0.005)


def test_a_worker_not_saturated_sheds_nothing(balance: Balance, clock: Clock) -> None:
    """One client alone, on one worker, the other idle: not bounced from worker to worker."""
    _look(balance, clock)
    _serve(balance, 19, 0.005)  # 20 requests of 5 ms: busy 0.1 of 0.25 s
    assert not _look(balance, clock, 0.005)


def test_a_worker_below_its_share_never_sheds(balance: Balance, clock: Clock) -> None:
    _look(balance, clock)
    _serve(balance, 49, 0.005)
    balance.counts[1] += 500
    assert not _look(balance, clock, 0.005)


def test_alone_a_worker_sheds_nothing(clock: Clock) -> None:
    alone = Balance(1)  # the other slot empty: no worker to shed to
    alone.claim()
    _look(alone, clock)
    _serve(alone, 49, 0.005)
    assert not _look(alone, clock, 0.005)


def test_a_replacement_worker_takes_the_slot_of_one_that_is_gone() -> None:
    balance = Balance(1)
    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitpid(gone, 0)
    balance.pids[0] = gone
    balance.pids[1] = os.getppid()
    balance.claim()
    assert balance.slot == 0 and balance.pids[0] == os.getpid()


def test_a_worker_that_cannot_get_the_table_never_sheds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's lock held by a worker that died holding it: the others serve on."""
    monkeypatch.setattr(web_balance, "CLAIM_TIMEOUT", 0.05)
    balance = Balance(1)
    balance.table.acquire()
    balance.claim()
    assert balance.slot == -1
    assert not any(balance.answered(1.0) for _ in range(10))


def test_the_counts_are_shared_with_forked_workers() -> None:
    balance = Balance(1)
    child = os.fork()
    if child == 0:  # a worker: claims a slot and counts 25 requests
        try:
            balance.claim()
            for _ in range(25):
                balance.answered(0.001)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert list(balance.pids) == [child, 0]
    assert list(balance.counts) == [25, 0]
