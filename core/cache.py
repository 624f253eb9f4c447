"""Django's Redis cache backend, without its per-call client construction, plus a counter.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` on every cache call, and
redis-py's constructor fills a case-insensitive table of ~170 response callbacks each time: on
a throttled API request that was the largest single CPU cost outside the view
(docs/benchmarks.md, "Hot paths"). The client is a thin, thread-safe handle on a connection
pool, so one per pool is enough. Caches are per thread in Django, so this is too.

``count`` / ``count_many`` are what the throttles need: create-with-expiry and increment, for
all of a request's throttle windows, in one round trip (one script command), where ``incr``
(EXISTS, INCR) per throttle and the ``add`` of a window's first request took two to three each.
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

    def count_many(
        self, slots: list[tuple[str, int]], amounts: list[int] | None = None
    ) -> dict[str, int]:
        """``count`` for several (key, timeout), in one command: a server-side script, which
        costs redis-py far less CPU than a pipeline of two commands per key. ``amounts`` adds
        more than one to each key (the throttles' leases)."""
        keys = [self.make_and_validate_key(key) for key, _ in slots]
        steps = amounts or [1] * len(slots)
        args = [
            value
            for (_, timeout), step in zip(slots, steps, strict=True)
            for value in (timeout, step)
        ]
        client = self._cache.get_client(None, write=True)
        replies = _COUNT_SCRIPT(keys=keys, args=args, client=client)
        return {key: int(reply) for (key, _), reply in zip(slots, replies, strict=True)}


# SET key 0 EX ttl NX, then INCRBY key step, for every key: one command for all of them.
_COUNT_LUA = """
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('SET', key, 0, 'EX', ARGV[2 * i - 1], 'NX')
  counts[i] = redis.call('INCRBY', key, ARGV[2 * i])
end
return counts
"""
# A Script runs by its digest (EVALSHA) and loads itself again where the server lacks it (a
# restarted or new Redis): redis-py's Script does that on NOSCRIPT.
_COUNT_SCRIPT = redis.Redis().register_script(_COUNT_LUA)
