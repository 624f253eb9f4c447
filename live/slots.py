"""Concurrently open streams and long-polls, counted per user and per client address across
every ASGI process and machine.

Each open one holds a slot: a member of a Redis sorted set per user (``live:slots:user:<id>``)
and per address (``live:slots:addr:<ip>``), scored by when its lease runs out. One script
drops the expired members, checks every set against its limit and adds the slot to all of them
at once, so two processes can never both take the last slot. A process renews the leases of
the slots it holds every third of ``FACEDOWN_LIVE_SLOT_LEASE_SECONDS``; closing frees a slot at
once. A process that dies stops renewing, and its slots expire with their leases: a crash
never holds a user's slots for longer than one lease.

Without Redis (the embedded default, or while Redis cannot be reached, with a warning logged
per minute) the slots are counted in this process: the limits then hold per process.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

Clock = Callable[[], float]

#: How often (seconds) a process logs that Redis is unreachable.
WARNING_INTERVAL = 60.0

_TAKE = """
local now, expires, member = tonumber(ARGV[1]), ARGV[2], ARGV[3]
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, expires, member)
  redis.call('EXPIREAT', key, math.ceil(tonumber(expires)))
end
return 0
"""


@dataclass(frozen=True)
class Limit:
    """One set of slots (a user's, an address's) and how many it may hold."""

    key: str
    most: int


@dataclass
class Held:
    """A slot this process holds in each of ``keys``."""

    member: str
    keys: tuple[str, ...]
    local: bool = False


@dataclass
class LocalSlots:
    """The slots of this process only: {key: {member: lease end}}."""

    sets: dict[str, dict[str, float]] = field(default_factory=dict)

    def take(self, limits: list[Limit], member: str, now: float, expires: float) -> int:
        for i, limit in enumerate(limits, start=1):
            held = self.sets.setdefault(limit.key, {})
            for gone in [m for m, end in held.items() if end <= now]:
                del held[gone]
            if len(held) >= limit.most:
                return i
        for limit in limits:
            self.sets[limit.key][member] = expires
        return 0

    def give_back(self, keys: tuple[str, ...], member: str) -> None:
        for key in keys:
            held = self.sets.get(key)
            if held is not None:
                held.pop(member, None)
                if not held:
                    del self.sets[key]

    def renew(self, held: list[Held], expires: float) -> None:
        for slot in held:
            for key in slot.keys:
                members = self.sets.get(key)
                if members is not None and slot.member in members:
                    members[slot.member] = expires


class Slots:
    """The slots of one process: take, give back, and keep the held ones' leases renewed."""

    def __init__(self, redis_url: str | None, clock: Clock = time.time) -> None:
        self.redis_url = redis_url
        self.clock = clock
        self.local = LocalSlots()
        self.held: dict[str, Held] = {}
        self.process = uuid.uuid4().hex[:12]
        self._counter = 0
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )
        self._scripts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )
        self._renewing: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
        self._last_warning = 0.0

    @property
    def lease(self) -> float:
        return float(settings.FACEDOWN_LIVE_SLOT_LEASE_SECONDS)

    def _client(self) -> Any:
        """This event loop's Redis client, with the take script registered on it."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            import redis.asyncio as aioredis

            assert self.redis_url is not None
            client = aioredis.Redis.from_url(
                self.redis_url, socket_timeout=1.0, socket_connect_timeout=1.0
            )
            self._scripts[loop] = client.register_script(_TAKE)
            self._clients[loop] = client
        return client

    def _warn(self, what: str, exc: Exception) -> None:
        now = time.monotonic()
        if self._last_warning and now - self._last_warning < WARNING_INTERVAL:
            return
        self._last_warning = now
        logger.warning(
            "live slots: Redis unreachable while %s (%s: %s); counting in this process.",
            what,
            type(exc).__name__,
            exc,
        )

    async def take(self, limits: list[Limit]) -> Held | Limit:
        """A slot in every set of ``limits``, or the first limit that is full."""
        self._counter += 1
        member = f"{self.process}:{self._counter}"
        now = self.clock()
        expires = now + self.lease
        keys = tuple(limit.key for limit in limits)
        local = self.redis_url is None
        if not local:
            try:
                args = [now, expires, member, *(limit.most for limit in limits)]
                client = self._client()
                script = self._scripts[asyncio.get_running_loop()]
                full = int(await script(keys=list(keys), args=args, client=client))
            except Exception as exc:  # Redis away: count here instead, as the throttles do
                self._warn("taking a slot", exc)
                local = True
        if local:
            full = self.local.take(limits, member, now, expires)
        if full:
            return limits[full - 1]
        held = self.held[member] = Held(member, keys, local)
        self._renew_soon()
        return held

    async def give_back(self, held: Held) -> None:
        """Free the slot at once (a lost Redis reply leaves it to expire with its lease)."""
        self.held.pop(held.member, None)
        if held.local:
            self.local.give_back(held.keys, held.member)
            return
        try:
            pipe = self._client().pipeline(transaction=False)
            for key in held.keys:
                pipe.zrem(key, held.member)
            await pipe.execute()
        except Exception as exc:
            self._warn("freeing a slot", exc)

    async def renew(self) -> None:
        """Push every held slot's lease one lease ahead."""
        expires = self.clock() + self.lease
        held = list(self.held.values())
        self.local.renew([h for h in held if h.local], expires)
        shared = [h for h in held if not h.local]
        if not shared:
            return
        try:
            pipe = self._client().pipeline(transaction=False)
            for slot in shared:
                for key in slot.keys:
                    pipe.zadd(key, {slot.member: expires}, xx=True)
                    pipe.expireat(key, int(expires) + 1)
            await pipe.execute()
        except Exception as exc:
            self._warn("renewing leases", exc)

    def _renew_soon(self) -> None:
        loop = asyncio.get_running_loop()
        if loop in self._renewing:
            return
        self._renewing.add(loop)
        task = loop.create_task(self._renew_forever())
        _background.add(task)
        task.add_done_callback(_background.discard)

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            await self.renew()


#: Keeps the renewal tasks referenced (the event loop holds only weak references).
_background: set[asyncio.Task[None]] = set()

_slots: Slots | None = None


def slots() -> Slots:
    """The process's slots: in Redis when the bus is, else in this process."""
    global _slots
    if _slots is None:
        shared = settings.FACEDOWN_LIVE_BUS == "redis" and settings.REDIS_URL
        _slots = Slots(settings.REDIS_URL if shared else None)
    return _slots
