"""DRF's rate throttles, counting requests in fixed windows.

DRF's ``SimpleRateThrottle`` keeps every request's timestamp in one cache entry, which grows to
the size of the rate (thousands for a busy player) and is read, pickled and written back on
every request. These subclasses keep DRF's rates, scopes, identification and ``Retry-After``,
but store one counter per window, bumped with a single atomic increment. A fixed window lets a
client send up to twice the rate across a window boundary, a fair price for one cheap round
trip per request.
"""

from __future__ import annotations

from typing import Any

from rest_framework import throttling


class WindowCounterMixin:
    rate: str | None
    num_requests: int
    duration: int
    cache: Any
    timer: Any

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)  # type: ignore[attr-defined]
        if key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        counter = f"{key}:{window}"
        try:
            count = self.cache.incr(counter)
        except ValueError:  # the window's first request
            count = 1 if self.cache.add(counter, 1, self.duration + 1) else self.cache.incr(counter)
        return bool(count <= self.num_requests)

    def wait(self) -> float:
        return float(max(1.0, self.window_ends - self.now))


class AnonRateThrottle(WindowCounterMixin, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(WindowCounterMixin, throttling.UserRateThrottle):
    pass


class ScopedRateThrottle(WindowCounterMixin, throttling.ScopedRateThrottle):
    def allow_request(self, request: Any, view: Any) -> bool:
        # DRF's scoped throttle learns its rate from the view here, before counting.
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)  # type: ignore[assignment]
        return super().allow_request(request, view)
