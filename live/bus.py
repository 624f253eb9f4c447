"""The bus: named channels carrying text messages from the code that commits to the streams.

Publishers are synchronous (the unit of work's after-commit hook, on any thread); listeners are
asyncio tasks (the ASGI streams and long-polls). Two implementations behind one interface:

- ``LocalBus`` (the embedded default, no Redis): in-process; a publication is handed to each
  listener's event loop with ``call_soon_threadsafe``, so any thread may publish.
- ``RedisBus`` (``REDIS_URL`` set): Redis pub/sub, so every process and machine hears every
  commit. Each process holds ONE subscriber connection per event loop, whatever the number of
  streams, subscribes to a channel while at least one local listener wants it, and fans each
  message out to its local listeners through the same in-process hub.

Delivery is at most once: a listener whose connection to Redis breaks is told (its queue ends)
and closes; clients reconnect and resume from their last seq (docs/live.md).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import re
import threading
import weakref
from collections.abc import Iterable, Iterator
from typing import Any, cast

from django.conf import settings

from live.publisher import Publisher

logger = logging.getLogger(__name__)

#: Put on a listener's queue when its messages can no longer be trusted (Redis went away).
BROKEN = object()
#: Put on every listener's queue every FACEDOWN_LIVE_KEEPALIVE_SECONDS: time for a keep-alive.
KEEPALIVE = object()


def match_channel(match_id: Any, seat: int | None, holder: int | None = None) -> str:
    """The channel of a match's events as ``seat`` reads them while user ``holder`` holds it
    (seat None: the spectators). The holder is part of the name, so a message for a seat's
    later occupant can never reach a stream subscribed for the earlier one."""
    if seat is None:
        return f"match:{match_id}:spectators"
    if holder is None:
        raise ValueError("a seat's channel names the user who holds the seat")
    return f"match:{match_id}:seat:{seat}:{holder}"


def seats_channel(match_id: Any) -> str:
    """The match's occupancy notices: published when a change gives a seat to someone else
    (or to no one), so every stream of the match re-reads whose seat its reader holds."""
    return f"match:{match_id}:seats"


def revoked_channel(user_id: int) -> str:
    """A user's revocation notices (logout, token reset, password change, deactivation):
    every stream of the user re-checks the credential it was opened with."""
    return f"revoked:{user_id}"


def chat_channel(match_id: Any) -> str:
    """The channel of a match's chat messages (public: every reader receives them)."""
    return f"match:{match_id}:chat"


def tournament_channel(tournament_id: Any) -> str:
    """A tournament's standings changes (public: every reader of the tournament receives
    them; built from finished matches only)."""
    return f"tournament:{tournament_id}"


def user_channel(user_id: int) -> str:
    """The channel of one user's account stream: a notice that its log has new items."""
    return f"user:{user_id}"


#: The account log (``Bus.account_append``): a user's stream items, kept to resume from.
ACCOUNT_LOG_LENGTH = 1000
ACCOUNT_LOG_SECONDS = 30 * 86400
#: What the user channel carries: the log has new items (the stream reads them from the log).
LOG_NOTICE = "log"
_LOG_ID = re.compile(r"(\d{1,20})-(\d{1,20})", re.ASCII)


#: Redis numbers a stream entry with two unsigned 64-bit parts.
LOG_ID_PART_MAX = 2**64 - 1


def log_id_parse(text: str) -> tuple[int, int] | None:
    """A log item's id (``<ms>-<n>``, as Redis numbers stream entries) as numbers, or None,
    also for a part beyond 64 bits (Redis refuses it)."""
    found = _LOG_ID.fullmatch(text)
    if found is None:
        return None
    parsed = (int(found[1]), int(found[2]))
    return parsed if max(parsed) <= LOG_ID_PART_MAX else None


def log_id_resumable(text: str) -> bool:
    """Whether a stream may resume after ``text``: an id, and not the last one Redis can
    number (nothing can follow it; reading after it is an error)."""
    parsed = log_id_parse(text)
    return parsed is not None and parsed != (LOG_ID_PART_MAX, LOG_ID_PART_MAX)


def _account_key(user_id: int) -> str:
    return f"account:{user_id}"


class Listener:
    """One stream's subscription: messages arrive on ``queue`` (``BROKEN`` ends it)."""

    def __init__(self, bus: Bus, channels: tuple[str, ...], loop: asyncio.AbstractEventLoop):
        self.bus = bus
        self.channels = channels
        self.loop = loop
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.closed = False
        _keepalive_add(self)

    def deliver(self, message: Any) -> None:
        """From any thread (on the listener's own loop, without waking it through its pipe:
        a message fanned out to a thousand streams costs a thousand queue puts, no more)."""
        if self.closed:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.queue.put_nowait(message)
        else:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, message)

    async def get(self) -> Any:
        """The next message, ``KEEPALIVE`` or ``BROKEN``. No timer per listener: one ticker per
        event loop serves them all (a thousand idle streams, one timer)."""
        return await self.queue.get()

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            _keepalive_remove(self)
            await self.bus.unsubscribe(self)


_ticking: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[Listener]] = (
    weakref.WeakKeyDictionary()
)


def _keepalive_add(listener: Listener) -> None:
    group = _ticking.get(listener.loop)
    if group is None:
        group = _ticking[listener.loop] = set()
        listener.loop.create_task(_keepalive_tick(listener.loop, group))
    group.add(listener)


def _keepalive_remove(listener: Listener) -> None:
    _ticking.get(listener.loop, set()).discard(listener)


async def _keepalive_tick(loop: asyncio.AbstractEventLoop, group: set[Listener]) -> None:
    while True:
        await asyncio.sleep(settings.FACEDOWN_LIVE_KEEPALIVE_SECONDS)
        for listener in list(group):
            listener.queue.put_nowait(KEEPALIVE)


class _Hub:
    """Channel → local listeners (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: dict[str, set[Listener]] = {}

    def add(self, listener: Listener) -> list[str]:
        """Register; return the channels that had no listener before."""
        with self._lock:
            new = [c for c in listener.channels if c not in self._listeners]
            for channel in listener.channels:
                self._listeners.setdefault(channel, set()).add(listener)
            return new

    def remove(self, listener: Listener) -> list[str]:
        """Unregister; return the channels left without a listener."""
        with self._lock:
            empty = []
            for channel in listener.channels:
                group = self._listeners.get(channel)
                if group is None:
                    continue
                group.discard(listener)
                if not group:
                    del self._listeners[channel]
                    empty.append(channel)
            return empty

    def deliver(self, channel: str, message: Any) -> None:
        with self._lock:
            group = list(self._listeners.get(channel, ()))
        for listener in group:
            listener.deliver(message)

    def all(self) -> list[Listener]:
        with self._lock:
            return list({x for group in self._listeners.values() for x in group})

    def channels(self) -> list[str]:
        with self._lock:
            return list(self._listeners)


class Bus:
    def publish_many(self, messages: Iterable[tuple[str, str]]) -> None:
        """Publish ``(channel, text)`` pairs; never raises (a lost publication is logged)."""
        raise NotImplementedError

    def account_append(self, items: Iterable[tuple[int, str]]) -> None:
        """Add (user id, item text) to each user's account log, then notify their streams."""
        raise NotImplementedError

    def account_items(self, user_id: int, after: str | None) -> list[tuple[str, str]]:
        """The user's logged items after id ``after`` (all kept, if None): (id, text), oldest
        first, at most 500."""
        raise NotImplementedError

    def account_bounds(self, user_id: int) -> tuple[str, str] | None:
        """The ids of the user's oldest and newest kept items; None if none is kept."""
        raise NotImplementedError

    async def subscribe(self, *channels: str) -> Listener:
        """A listener on ``channels``; once this returns, every later publication reaches it."""
        raise NotImplementedError

    async def unsubscribe(self, listener: Listener) -> None:
        raise NotImplementedError


class LocalBus(Bus):
    def __init__(self) -> None:
        self.hub = _Hub()
        self.logs: dict[int, collections.deque[tuple[str, str]]] = {}
        self.numbers = itertools.count(1)
        self.lock = threading.Lock()

    def account_append(self, items: Iterable[tuple[int, str]]) -> None:
        users: set[int] = set()
        with self.lock:
            for user_id, text in items:
                log = self.logs.setdefault(user_id, collections.deque(maxlen=ACCOUNT_LOG_LENGTH))
                log.append((f"{next(self.numbers)}-0", text))
                users.add(user_id)
        self.publish_many((user_channel(user_id), LOG_NOTICE) for user_id in users)

    def account_items(self, user_id: int, after: str | None) -> list[tuple[str, str]]:
        floor = log_id_parse(after) if after is not None else None
        with self.lock:
            kept = list(self.logs.get(user_id, ()))
        if floor is not None:
            kept = [item for item in kept if (log_id_parse(item[0]) or (0, 0)) > floor]
        return kept[:500]

    def account_bounds(self, user_id: int) -> tuple[str, str] | None:
        with self.lock:
            log = self.logs.get(user_id)
            return (log[0][0], log[-1][0]) if log else None

    def publish_many(self, messages: Iterable[tuple[str, str]]) -> None:
        for channel, text in messages:
            self.hub.deliver(channel, text)

    async def subscribe(self, *channels: str) -> Listener:
        listener = Listener(self, channels, asyncio.get_running_loop())
        self.hub.add(listener)
        return listener

    async def unsubscribe(self, listener: Listener) -> None:
        self.hub.remove(listener)


class _RedisReader:
    """One Redis subscriber connection for one event loop, shared by its listeners."""

    def __init__(self, url: str) -> None:
        import redis.asyncio as aioredis

        self.client = aioredis.Redis.from_url(url, socket_connect_timeout=2)
        self.pubsub = self.client.pubsub()
        self.hub = _Hub()
        self.confirmed: dict[str, asyncio.Event] = {}
        self.commands = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.broken = False

    async def want(self, new: list[str], channels: tuple[str, ...]) -> None:
        """Subscribe to the ``new`` channels; wait until Redis confirmed all of ``channels``."""
        waits = [self.confirmed.setdefault(c, asyncio.Event()).wait() for c in channels]
        async with self.commands:  # redis-py's PubSub must not connect twice at once
            if new:
                await self.pubsub.subscribe(*new)
            if self.task is None:
                self.task = asyncio.get_running_loop().create_task(self._read())
        await asyncio.wait_for(asyncio.gather(*waits), settings.FACEDOWN_LIVE_SUBSCRIBE_TIMEOUT)

    async def drop(self, channels: list[str]) -> None:
        for channel in channels:
            self.confirmed.pop(channel, None)
        if channels and not self.broken:
            async with self.commands:
                with contextlib.suppress(Exception):
                    await self.pubsub.unsubscribe(*channels)

    async def _read(self) -> None:
        try:
            while True:
                message = await self.pubsub.get_message(timeout=None)
                if message is None:
                    continue
                kind, channel = message["type"], message["channel"].decode()
                if kind == "message":
                    self.hub.deliver(channel, message["data"].decode())
                elif kind == "subscribe" and channel in self.confirmed:
                    self.confirmed[channel].set()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.warning("live bus: the Redis subscription broke", exc_info=True)
            self.broken = True
            for listener in self.hub.all():
                listener.deliver(BROKEN)


class RedisBus(Bus):
    def __init__(self, url: str) -> None:
        import redis

        self.url = url
        timeout = settings.FACEDOWN_LIVE_PUBLISH_TIMEOUT
        self.client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self.publisher = Publisher(self.client)
        self._readers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _RedisReader] = (
            weakref.WeakKeyDictionary()
        )

    def publish_many(self, messages: Iterable[tuple[str, str]]) -> None:
        self.send([("PUBLISH", channel, text) for channel, text in messages])

    def send(self, commands: list[tuple[str, ...]]) -> None:
        batch = getattr(_batch, "messages", None)
        if batch is not None:  # inside publications_batched: sent once, at its end
            batch.extend(commands)
            return
        try:
            self.publisher.send(commands)
        except Exception:
            logger.warning("live bus: a publication to Redis was lost", exc_info=True)

    def account_append(self, items: Iterable[tuple[int, str]]) -> None:
        # In the same write as the change's other publications: no round trip of its own.
        commands: list[tuple[str, ...]] = []
        users: list[int] = []
        for user_id, text in items:
            key = _account_key(user_id)
            commands.append(
                ("XADD", key, "MAXLEN", "~", str(ACCOUNT_LOG_LENGTH), "*", "item", text)
            )
            if user_id not in users:
                users.append(user_id)
        for user_id in users:
            commands.append(("EXPIRE", _account_key(user_id), str(ACCOUNT_LOG_SECONDS)))
            commands.append(("PUBLISH", user_channel(user_id), LOG_NOTICE))
        self.send(commands)

    def account_items(self, user_id: int, after: str | None) -> list[tuple[str, str]]:
        low = f"({after}" if after is not None else "-"
        entries: Any = self.client.xrange(_account_key(user_id), min=low, count=500)
        return [(key.decode(), fields[b"item"].decode()) for key, fields in entries]

    def account_bounds(self, user_id: int) -> tuple[str, str] | None:
        key = _account_key(user_id)
        first: Any = self.client.xrange(key, count=1)
        last: Any = self.client.xrevrange(key, count=1)
        if not first or not last:
            return None
        return first[0][0].decode(), last[0][0].decode()

    def _reader(self) -> _RedisReader:
        loop = asyncio.get_running_loop()
        reader = self._readers.get(loop)
        if reader is None or reader.broken:
            reader = self._readers[loop] = _RedisReader(self.url)
        return reader

    async def subscribe(self, *channels: str) -> Listener:
        reader = self._reader()
        listener = Listener(self, channels, asyncio.get_running_loop())
        listener.reader = reader  # type: ignore[attr-defined]
        new = reader.hub.add(listener)
        try:
            await reader.want(new, channels)
        except BaseException:
            await reader.drop(reader.hub.remove(listener))
            raise
        return listener

    async def unsubscribe(self, listener: Listener) -> None:
        reader: _RedisReader = listener.reader  # type: ignore[attr-defined]
        await reader.drop(reader.hub.remove(listener))


_bus: Bus | None = None
_bus_lock = threading.Lock()
_batch = threading.local()


@contextlib.contextmanager
def publications_batched() -> Iterator[None]:
    """What this thread publishes on Redis inside the block goes out at its end, in one
    write (live/publisher.py), in the order published; also when the block raises, since
    what was published had committed. Entered around a commit's hooks (core/commit_hooks.py):
    the change's events and its notifications come from separate hooks."""
    if getattr(_batch, "messages", None) is not None:  # nested: the outer block sends
        yield
        return
    _batch.messages = []
    try:
        yield
    finally:
        commands, _batch.messages = _batch.messages, None
        if commands:
            cast(RedisBus, bus()).send(commands)


def bus() -> Bus:
    """The process's bus: Redis pub/sub when ``FACEDOWN_LIVE_BUS`` is "redis", else local."""
    global _bus
    with _bus_lock:
        if _bus is None:
            if settings.FACEDOWN_LIVE_BUS == "redis":
                _bus = RedisBus(settings.REDIS_URL)
            else:
                _bus = LocalBus()
        return _bus
