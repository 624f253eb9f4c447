"""core.cache: the Redis cache backend (Django's cache API on one client) and the throttles'
counter."""

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
    client = cache.client
    ttl = client.ttl(cache.make_key(key))
    assert 0 < ttl <= 30
    # The expiry is set once, when the key is created, not pushed back by later counts.
    client.expire(cache.make_key(key), 5)
    assert cache.count(key, 30) == 4
    assert client.ttl(cache.make_key(key)) <= 5
    # The throttles count through it.
    assert counters.incr(key, 30) == 5
    cache.delete(key)


def test_one_client_for_every_call() -> None:
    assert isinstance(cache, RedisCache)
    first = cache.client
    cache.set("test-client-reuse", {"x": 1}, 10)
    assert cache.get("test-client-reuse") == {"x": 1}
    assert cache.client is first
    cache.delete("test-client-reuse")


def test_django_cache_api() -> None:
    """What Django's own Redis backend does, on this one."""
    k = f"test-api-{uuid.uuid4().hex}"
    assert cache.get(k, "missing") == "missing"
    assert cache.add(k, 1, 30) is True and cache.add(k, 2, 30) is False
    assert cache.incr(k, 4) == 5 and cache.get(k) == 5
    with pytest.raises(ValueError):
        cache.incr(f"{k}-none")
    cache.set(k, True, 30)
    assert cache.get(k) is True  # a bool is pickled, not stored as 1
    assert cache.has_key(k) and cache.touch(k, None)
    assert cache.client.ttl(cache.make_key(k)) == -1  # None: kept for ever
    cache.set(k, "gone", 0)  # a zero timeout deletes
    assert not cache.has_key(k)
    cache.set_many({k: [1], f"{k}-b": 2}, 30)
    assert cache.get_many([k, f"{k}-b", f"{k}-c"]) == {k: [1], f"{k}-b": 2}
    assert 0 < cache.client.ttl(cache.make_key(k)) <= 30
    cache.delete_many([k, f"{k}-b"])
    assert cache.get_many([k, f"{k}-b"]) == {} and cache.delete(k) is False


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
    other.client.script_flush()
    assert other.count_many([(key, 30), (f"{key}-b", 5)]) == {key: 2, f"{key}-b": 1}
