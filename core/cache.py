"""Django's Redis cache backend, without its per-call client construction, plus a counter.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` on every cache call, and
redis-py's constructor fills a case-insensitive table of ~170 response callbacks each time: on
a throttled API request that was the largest single CPU cost outside the view
(docs/benchmarks.md, "Hot paths"). The client is a thin, thread-safe handle on a connection
pool, so one per pool is enough. Caches are per thread in Django, so this is too.

``count`` / ``count_many`` create-with-expiry and increment in one round trip (one script
command), where ``incr`` (EXISTS, INCR) and a first ``add`` took two to three (login lockouts).
``reserve_many`` is the throttles' (``core.throttling.Leases``): a range of counts for each of a
request's windows, sized by each window's count, in one command.
"""

from __future__ import annotations

from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class ReusingRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]  # not in the stubs
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient

    def count(self, key: str, timeout: int) -> int:
        """Add one to the integer at ``key`` (created at 0 with ``timeout`` seconds to live when
        missing) and return it, in one round trip. The value is a plain Redis integer, which
        ``get`` reads back like any cached int."""
        return self.count_many([(key, timeout)])[key]

    def count_many(self, slots: list[tuple[str, int]]) -> dict[str, int]:
        """``count`` for several (key, timeout), in one command: a server-side script, which
        costs redis-py far less CPU than a pipeline of two commands per key."""
        keys = [self.make_and_validate_key(key) for key, _ in slots]
        client = self._cache.get_client(None, write=True)
        replies = _COUNT_SCRIPT(keys=keys, args=[timeout for _, timeout in slots], client=client)
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
        client = self._cache.get_client(None, write=True)
        replies = _RESERVE_SCRIPT(keys=keys, args=args, client=client)
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

# A throttle's range of counts (core.throttling.Leases), sized by the count it starts from.
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
