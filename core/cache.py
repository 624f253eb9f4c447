"""The Redis cache backend: Django's cache API on one redis-py client, plus a counter.

A custom backend on Django's documented ``BaseCache`` ("Using a custom cache backend"), written
on redis-py's public API. It behaves as Django's own Redis backend (integers stored as plain
Redis integers, everything else pickled; the same timeouts) with one client per backend:
Django's builds a new ``redis.Redis`` on every cache call, whose constructor fills a
case-insensitive table of response callbacks each time, the largest single CPU cost of a
throttled API request outside its view (docs/benchmarks-history.md, "Hot paths"). A client is a
thin, thread-safe handle on a connection pool; caches are per thread in Django, so each thread
has its own anyway. ``LOCATION`` is one Redis URL; ``OPTIONS`` go to redis-py's
``ConnectionPool.from_url``.

``count`` / ``count_many`` create-with-expiry and increment in one round trip (one script
command), where ``incr`` (EXISTS, INCR) and a first ``add`` took two to three (login lockouts).
``reserve_many`` is the throttles' (``core.throttling.ReservedCounts``): a range of counts for
each of a request's windows, sized by each window's count, in one command.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.exceptions import ImproperlyConfigured


def _dumps(value: Any) -> Any:
    # Integers stay plain Redis integers (INCR works on them); bool is not one of them.
    return value if type(value) is int else pickle.dumps(value, pickle.HIGHEST_PROTOCOL)


def _loads(data: Any) -> Any:
    try:
        return int(data)
    except ValueError:
        return pickle.loads(data)  # written by this backend only


class RedisCache(BaseCache):
    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(params)
        urls = [server] if isinstance(server, str) else list(server)
        if len(urls) != 1 or any(separator in urls[0] for separator in ",;"):
            raise ImproperlyConfigured("core.cache.RedisCache takes one Redis URL as LOCATION")
        self.url = urls[0]
        self.options: dict[str, Any] = params.get("OPTIONS", {})
        self.made: redis.Redis | None = None

    @property
    def client(self) -> redis.Redis:
        """This backend's redis-py client (made at its first use)."""
        if self.made is None:
            pool = redis.ConnectionPool.from_url(self.url, **self.options)
            self.made = redis.Redis(connection_pool=pool)
        return self.made

    def get_backend_timeout(self, timeout: float | None = DEFAULT_TIMEOUT) -> int | None:
        if timeout == DEFAULT_TIMEOUT:
            timeout = self.default_timeout
        # None keeps the key for ever; zero or less deletes it (Django's rule).
        return None if timeout is None else max(0, int(timeout))

    def add(
        self,
        key: Any,
        value: Any,
        timeout: float | None = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> bool:
        name = self.make_and_validate_key(key, version=version)
        seconds = self.get_backend_timeout(timeout)
        if seconds == 0:
            added = bool(self.client.set(name, _dumps(value), nx=True))
            if added:
                self.client.delete(name)
            return added
        return bool(self.client.set(name, _dumps(value), ex=seconds, nx=True))

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        data = self.client.get(self.make_and_validate_key(key, version=version))
        return default if data is None else _loads(data)

    def set(
        self,
        key: Any,
        value: Any,
        timeout: float | None = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> None:
        name = self.make_and_validate_key(key, version=version)
        seconds = self.get_backend_timeout(timeout)
        if seconds == 0:
            self.client.delete(name)
        else:
            self.client.set(name, _dumps(value), ex=seconds)

    def touch(
        self, key: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        name = self.make_and_validate_key(key, version=version)
        seconds = self.get_backend_timeout(timeout)
        if seconds is None:
            return bool(self.client.persist(name))
        return bool(self.client.expire(name, seconds))

    def delete(self, key: Any, version: int | None = None) -> bool:
        return bool(self.client.delete(self.make_and_validate_key(key, version=version)))

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        names = {self.make_and_validate_key(key, version=version): key for key in keys}
        if not names:
            return {}
        values = self.client.mget(list(names))
        return {
            names[name]: _loads(data)
            for name, data in zip(names, values, strict=True)
            if data is not None
        }

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return bool(self.client.exists(self.make_and_validate_key(key, version=version)))

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        name = self.make_and_validate_key(key, version=version)
        if not self.client.exists(name):
            raise ValueError(f"Key '{key}' not found.")
        return int(self.client.incr(name, delta))

    def set_many(
        self,
        data: dict[Any, Any],
        timeout: float | None = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> list[Any]:
        if not data:
            return []
        values = {
            self.make_and_validate_key(k, version=version): _dumps(v) for k, v in data.items()
        }
        seconds = self.get_backend_timeout(timeout)
        pipeline = self.client.pipeline()
        pipeline.mset(values)
        if seconds is not None:
            for name in values:
                pipeline.expire(name, seconds)
        pipeline.execute()
        return []

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        names = [self.make_and_validate_key(key, version=version) for key in keys]
        if names:
            self.client.delete(*names)

    def clear(self) -> None:
        self.client.flushdb()

    def count(self, key: str, timeout: int) -> int:
        """Add one to the integer at ``key`` (created at 0 with ``timeout`` seconds to live when
        missing) and return it, in one round trip. The value is a plain Redis integer, which
        ``get`` reads back like any cached int."""
        return self.count_many([(key, timeout)])[key]

    def count_many(self, slots: list[tuple[str, int]]) -> dict[str, int]:
        """``count`` for several (key, timeout), in one command: a server-side script, which
        costs redis-py far less CPU than a pipeline of two commands per key."""
        keys = [self.make_and_validate_key(key) for key, _ in slots]
        replies = _COUNT_SCRIPT(
            keys=keys, args=[timeout for _, timeout in slots], client=self.client
        )
        return {key: int(reply) for (key, _), reply in zip(slots, replies, strict=True)}

    def reserve_many(
        self, slots: list[tuple[str, int, int, int]], share: int
    ) -> dict[str, tuple[int, int]]:
        """For each (key, timeout, limit, largest): add max(1, min(largest, (limit - count) //
        share)) to the integer at ``key`` (created at 0 with ``timeout`` seconds to live when
        missing), by its count at that moment; (the new count, what was added). One command."""
        keys = [self.make_and_validate_key(key) for key, _, _, _ in slots]
        args = [share] + [
            value for _, timeout, limit, largest in slots for value in (timeout, limit, largest)
        ]
        replies = _RESERVE_SCRIPT(keys=keys, args=args, client=self.client)
        return {
            key: (int(last), int(size))
            for (key, _, _, _), (last, size) in zip(slots, replies, strict=True)
        }


# SET key 0 EX ttl NX, then INCR key, for every key: what the pipeline did, in one command.
_COUNT_LUA = """
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('SET', key, 0, 'EX', ARGV[i], 'NX')
  counts[i] = redis.call('INCR', key)
end
return counts
"""
# A Script runs by its digest (EVALSHA) and loads itself again where the server lacks it (a
# restarted or new Redis): redis-py's Script does that on NOSCRIPT.
_COUNT_SCRIPT = redis.Redis().register_script(_COUNT_LUA)

# A throttle's range of counts (core.throttling.ReservedCounts), sized by the count it starts from.
_RESERVE_LUA = """
local share = tonumber(ARGV[1])
local ranges = {}
for i, key in ipairs(KEYS) do
  local timeout, limit, largest = ARGV[3 * i - 1], tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  redis.call('SET', key, 0, 'EX', timeout, 'NX')
  local size = math.floor((limit - tonumber(redis.call('GET', key))) / share)
  size = math.max(1, math.min(largest, size))
  ranges[i] = {redis.call('INCRBY', key, size), size}
end
return ranges
"""
_RESERVE_SCRIPT = redis.Redis().register_script(_RESERVE_LUA)
