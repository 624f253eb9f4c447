"""core.cache: Django's Redis backend with one client per pool and the throttles' counter."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import caches

from core.cache import RedisCache
from core.throttling import counters
from tests.faults.conftest import OwnRedis, own_redis  # noqa: F401 - the fixture

cache = caches["default"]
pytestmark = pytest.mark.skipif(
    not isinstance(cache, RedisCache), reason="needs REDIS_URL (the Redis cache backend)"
)


def test_count_creates_with_expiry_and_increments_in_one_round_trip() -> None:
    key = f"test-count-{uuid.uuid4().hex}"
    assert isinstance(cache, RedisCache)
    assert [cache.count(key, 30) for _ in range(3)] == [1, 2, 3]
    # A plain integer that the rest of Django's API reads back.
    assert cache.get(key) == 3
    client = cache._cache.get_client(key, write=True)
    ttl = client.ttl(cache.make_key(key))
    assert 0 < ttl <= 30
    # The expiry is set once, when the key is created, not pushed back by later counts.
    client.expire(cache.make_key(key), 5)
    assert cache.count(key, 30) == 4
    assert client.ttl(cache.make_key(key)) <= 5
    # The throttles count through it.
    assert counters.incr(key, 30) == 5
    cache.delete(key)


def test_one_client_per_pool() -> None:
    first = cache._cache.get_client("a", write=True)
    assert cache._cache.get_client("b", write=True) is first
    assert cache._cache.get_client("c") is first  # one server: reads use the same pool
    cache.set("test-client-reuse", {"x": 1}, 10)
    assert cache.get("test-client-reuse") == {"x": 1}
    cache.delete("test-client-reuse")


def test_count_many_counts_every_key_in_one_round_trip() -> None:
    keys = [f"test-many-{uuid.uuid4().hex}" for _ in range(3)]
    assert cache.count_many([(k, 30) for k in keys]) == dict.fromkeys(keys, 1)
    assert cache.count_many([(keys[0], 30), (keys[2], 30)]) == {keys[0]: 2, keys[2]: 2}
    assert counters.incr(keys[1], 30) == 2
    cache.delete_many(keys)


def test_the_count_script_loads_itself_on_a_server_that_lost_it(own_redis: OwnRedis) -> None:  # noqa: F811
    """A restarted (or new) Redis has no scripts: the first count loads it again. On a Redis
    of this test's own, so no other user of the shared one loses its scripts."""
    other = RedisCache(own_redis.url, {})
    key = f"test-script-{uuid.uuid4().hex}"
    assert other.count_many([(key, 30)]) == {key: 1}
    other._cache.get_client(None, write=True).script_flush()
    assert other.count_many([(key, 30), (f"{key}-b", 5)]) == {key: 2, f"{key}-b": 1}
