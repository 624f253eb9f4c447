"""A Redis that hangs (stopped with SIGSTOP: the kernel still accepts connections, nothing
answers) fails a cache call within the configured socket timeout instead of holding the
request; resumed, the same client answers again."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest
import redis

from core.cache import RedisCache
from tests.faults.processes import RedisServer

TIMEOUT = 0.3


def test_a_hung_redis_fails_a_cache_call_within_its_socket_timeout(settings: Any) -> None:
    options = settings.CACHES["default"].get("OPTIONS", {})
    if "redis" not in settings.CACHES["default"]["BACKEND"].lower():
        pytest.skip("the tests run without REDIS_URL: no Redis cache configured")
    # The settings bound every call (docs/deployment.md, FACEDOWN_REDIS_SOCKET_TIMEOUT)...
    assert options["socket_timeout"] == 2 and options["socket_connect_timeout"] == 2
    server = RedisServer()
    server.start()
    try:
        # ... here shorter, to keep the test short: the same options, another value.
        cache = RedisCache(server.url, {"OPTIONS": {**options, "socket_timeout": TIMEOUT}})
        cache.set("seen", 1)
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            began = time.monotonic()
            with pytest.raises(redis.TimeoutError):
                cache.get("seen")
            assert TIMEOUT <= time.monotonic() - began < TIMEOUT + 1
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        assert cache.get("seen") == 1
    finally:
        server.stop()
