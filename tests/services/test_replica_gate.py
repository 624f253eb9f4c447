"""The replica gate's rule (games/replica_gate.py) on the real Redis, with the replica's status
and the reader's last write set to chosen moments: a read goes to the replica only if the
replica is within the lag bound and has replayed past the reader's own last write; the
replica unusable, or Redis unreachable, sends it to the primary without an error."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import redis

from games import replica_gate
from games.replica_gate import reading_as, replica_allowed, status_note, wrote
from live.replica_store import BusStore
from tests.faults.processes import free_port

ACCOUNT = 2**31 - 11  # no real account's


@pytest.fixture(autouse=True)
def _fresh(settings: Any) -> Iterator[None]:
    settings.FACEDOWN_REPLICA_MAX_LAG_SECONDS = 5
    settings.FACEDOWN_REPLICA_CHECK_SECONDS = 60  # the status set here stays for the test
    yield
    replica_gate.replica_store_register(BusStore())  # live's, as registered at start
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(replica_gate.STATUS_KEY, replica_gate.wrote_key(ACCOUNT))


def _allowed(account: int | None) -> bool:
    with reading_as(lambda: account):
        return replica_allowed()


def test_a_reader_reads_the_replica_only_once_it_has_the_readers_last_write() -> None:
    now = time.time()
    status_note((now - 2, 2.0))  # the replica has every commit up to 2 s ago
    assert _allowed(None) and _allowed(ACCOUNT)  # no write of this account noted
    wrote(ACCOUNT, at=now - 3)
    assert _allowed(ACCOUNT)  # written before what the replica has
    wrote(ACCOUNT, at=now - 1)
    assert not _allowed(ACCOUNT)  # written after: the primary
    assert _allowed(None)  # anonymous readers still read the replica


def test_a_replica_too_far_behind_or_unusable_is_passed_over() -> None:
    now = time.time()
    status_note((now - 6, 6.0))
    assert not _allowed(None) and not _allowed(ACCOUNT)
    status_note(replica_gate.UNUSABLE)
    assert not _allowed(None)
    status_note((math.inf, 0.0))  # the primary's own cluster under the replica's name
    wrote(ACCOUNT, at=now)
    assert _allowed(ACCOUNT)


class _Unreachable:
    """A store at a port nothing listens on: every read fails to connect."""

    def __init__(self) -> None:
        self.client = redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0")

    def send(self, commands: Sequence[tuple[str, ...]]) -> None:
        return None

    def read(self, keys: list[str]) -> list[bytes | str | None] | None:
        return self.client.mget(keys)


def test_redis_unreachable_sends_reads_to_the_primary() -> None:
    status_note((time.time(), 0.0))
    assert _allowed(ACCOUNT)
    replica_gate.replica_store_register(_Unreachable())
    assert not _allowed(ACCOUNT) and not _allowed(None)
