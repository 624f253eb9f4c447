"""The open-stream slots (live/slots.py) on the real Redis and in-process, with a controlled
clock: limits across processes, freeing, renewal, and the leases of a process that died."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

import pytest
from django.conf import settings

from live.slots import Held, Limit, Slots

LEASE = 60.0


class Clock:
    """Starts at the real time: Redis expires the sets by its own clock, after the leases."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["redis", "local"])
def two_processes(request: pytest.FixtureRequest) -> tuple[Slots, Slots, Clock]:
    """Two processes' slots on one clock: sharing Redis, or (without it) each its own."""
    clock = Clock()
    url = settings.REDIS_URL if request.param == "redis" else None
    first = Slots(url, clock)
    second = Slots(url, clock) if url else first  # in-process: one process's count
    return first, second, clock


def _limits(most: int) -> list[Limit]:
    user = uuid.uuid4().hex  # a user of this test only, whatever the database holds
    return [Limit(f"live:slots:test:addr:{user}", 100), Limit(f"live:slots:test:user:{user}", most)]


def test_a_full_user_is_refused_and_a_closed_slot_is_free_at_once(
    two_processes: tuple[Slots, Slots, Clock],
) -> None:
    first, second, _ = two_processes
    limits = _limits(2)

    async def run() -> None:
        held = [await first.take(limits), await second.take(limits)]
        assert all(isinstance(h, Held) for h in held)
        assert await second.take(limits) == limits[1]  # the user's limit, not the address's
        await first.give_back(held[0])  # type: ignore[arg-type]
        again = await second.take(limits)
        assert isinstance(again, Held)
        for slot in (held[1], again):
            await second.give_back(slot)  # type: ignore[arg-type]

    asyncio.run(run())


def test_a_dead_process_slots_expire_with_their_lease_and_live_ones_are_renewed(
    two_processes: tuple[Slots, Slots, Clock], settings: object
) -> None:
    settings.FACEDOWN_LIVE_SLOT_LEASE_SECONDS = LEASE  # type: ignore[attr-defined]
    dead, alive, clock = two_processes
    limits = _limits(2)

    async def run() -> None:
        gone = await dead.take(limits)  # this process will die holding it
        assert isinstance(gone, Held)
        kept = await alive.take(limits)
        assert isinstance(kept, Held)
        assert await alive.take(limits) == limits[1]
        clock.now += LEASE * 0.9
        if alive is dead:  # in-process: a slot whose holder vanished without freeing it
            del dead.held[gone.member]
        await alive.renew()  # the live process renews; the dead one no longer does
        clock.now += LEASE * 0.2  # the dead one's lease is over, the renewed one's is not
        taken = await alive.take(limits)
        assert isinstance(taken, Held)
        assert await alive.take(limits) == limits[1]  # the renewed slot still counts
        for slot in (kept, taken):
            await alive.give_back(slot)

    asyncio.run(run())


def test_with_redis_unreachable_the_slots_are_counted_in_the_process(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from tests.faults.processes import free_port

    # Another test (a worker's set-up) may have raised the root logger's level.
    caplog.set_level(logging.WARNING, logger="live.slots")
    slots = Slots(f"redis://127.0.0.1:{free_port()}/0", Clock())  # nothing listens there
    limits = _limits(1)

    async def run() -> None:
        held = await slots.take(limits)
        assert isinstance(held, Held) and held.local
        assert await slots.take(limits) == limits[1]  # the limit still holds, per process
        await slots.give_back(held)
        assert isinstance(await slots.take(limits), Held)

    asyncio.run(run())
    assert "counting in this process" in caplog.text
