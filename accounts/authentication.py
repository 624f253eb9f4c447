"""Token authentication with a short per-process cache of token → user.

A move submission is a hot path; looking the token up costs a database round trip on every
request. The cache keeps that lookup off the path for ``FACEDOWN_TOKEN_CACHE_SECONDS``
(a reset token or deactivated user is refused at the latest that long after the change).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.conf import settings
from rest_framework.authentication import TokenAuthentication

_cache: dict[str, tuple[float, tuple[Any, Any]]] = {}
_lock = threading.Lock()
_MAX_ENTRIES = 10_000


class CachedTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        ttl = settings.FACEDOWN_TOKEN_CACHE_SECONDS
        now = time.monotonic()
        if ttl > 0:
            with _lock:
                hit = _cache.get(key)
            if hit is not None and hit[0] > now:
                return hit[1]
        credentials = super().authenticate_credentials(key)
        if ttl > 0:
            with _lock:
                if len(_cache) >= _MAX_ENTRIES:
                    _cache.clear()
                _cache[key] = (now + ttl, credentials)
        return credentials


def forget_cached_tokens() -> None:
    with _lock:
        _cache.clear()
