"""config/web_balance.py: a worker that serves more than its share of requests sheds one
keep-alive connection per look; nothing is shed while the workers are even."""

from __future__ import annotations

import os

import pytest

from config.web_balance import Balance


def _serve(balance: Balance, requests: int) -> int:
    """Answers ``requests`` requests in this process without comparing the counts; how many
    of them closed their connection."""
    balance.next_look = float("inf")
    return sum(balance.close_this_connection() for _ in range(requests))


def _look(balance: Balance) -> bool:
    """Answers one request, comparing the counts first (as twice a second)."""
    balance.next_look = 0.0
    return balance.close_this_connection()


@pytest.fixture
def balance() -> Balance:
    made = Balance(2)
    made.pids[1] = os.getppid()  # the other worker: a process that is alive
    return made


def test_a_worker_above_its_share_sheds_and_an_even_one_does_not(balance: Balance) -> None:
    assert not _look(balance)  # the first look only remembers the counts
    assert balance.slot == 0 and balance.pids[0] == os.getpid()
    # Since the last look this worker served 100, the other 40 (mean 70, +43%): it sheds the
    # connection of the answer that looked, and only that one.
    _serve(balance, 99)
    balance.counts[1] += 40
    assert _look(balance)
    assert _serve(balance, 49) == 0
    # Still above its share at the next look (50 against 20): one more.
    balance.counts[1] += 20
    assert _look(balance)
    # Then even (50 against 50): nothing is shed.
    _serve(balance, 49)
    balance.counts[1] += 50
    assert not _look(balance)
    assert _serve(balance, 49) == 0
    # Within the margin (50 against 36: +16% over the mean of 43): nothing either.
    balance.counts[1] += 36
    assert not _look(balance)


def test_a_worker_below_its_share_never_sheds(balance: Balance) -> None:
    _look(balance)
    _serve(balance, 99)
    balance.counts[1] += 500
    assert not _look(balance)
    assert _serve(balance, 100) == 0


def test_alone_a_worker_sheds_nothing() -> None:
    alone = Balance(2)  # the other slot empty: no worker to shed to
    _look(alone)
    _serve(alone, 99)
    assert not _look(alone)
    assert _serve(alone, 100) == 0


def test_a_replacement_worker_takes_the_slot_of_one_that_is_gone() -> None:
    balance = Balance(2)
    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitpid(gone, 0)
    balance.pids[0] = gone
    balance.pids[1] = os.getppid()
    balance.close_this_connection()
    assert balance.slot == 0 and balance.pids[0] == os.getpid()


def test_the_counts_are_shared_with_forked_workers() -> None:
    balance = Balance(2)
    child = os.fork()
    if child == 0:  # a worker: claims a slot and counts 25 requests
        try:
            for _ in range(25):
                balance.close_this_connection()
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert list(balance.pids) == [child, 0]
    assert list(balance.counts) == [25, 0]
