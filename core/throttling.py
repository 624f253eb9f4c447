"""DRF's rate throttles, counting requests in fixed windows, failing open to this process.

DRF's ``SimpleRateThrottle`` keeps every request's timestamp in one cache entry, which grows to
the size of the rate (thousands for a busy player) and is read, pickled and written back on
every request. These subclasses keep DRF's rates, scopes and ``Retry-After``, but store one
counter per window, bumped with a single atomic increment. A fixed window lets a client send up
to twice the rate across a window boundary, a fair price for one cheap round trip per request.

Two departures from DRF:

- **The client's address** is ``core.client_address.client_address``: ``X-Forwarded-For`` is
  trusted only as far as ``FACEDOWN_TRUSTED_PROXY_HOPS`` says, never by itself.
- **The shared cache is not a single point of failure.** When it cannot be reached (Redis down),
  counting falls back to a per-process in-memory cache (``counters``), with one warning logged
  per minute and process: the limits then hold per process instead of across processes, and no
  request fails because of the throttle.

Scopes (``throttle_scope`` on a view, or a mapping of HTTP method to scope): ``login``,
``register``, ``match_create``, ``moves`` and ``reads``, each with its own rate
(``FACEDOWN_THROTTLE_<SCOPE>``), counted per user, or per client address when anonymous.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from django.core.cache import cache as shared_cache
from django.core.cache.backends.locmem import LocMemCache
from rest_framework import throttling

from core.client_address import client_address

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: How often (seconds) a process logs that the shared cache is unreachable.
WARNING_INTERVAL = 60.0


class FailSafeCounters:
    """Counters and small values in the shared cache, or in this process while it is down."""

    def __init__(self) -> None:
        self.fallback = LocMemCache("facedown-throttle-fallback", {"MAX_ENTRIES": 50_000})
        self._last_warning = 0.0
        self._lock = threading.Lock()

    def _call(self, what: str, shared: Callable[[Any], T]) -> T:
        try:
            return shared(shared_cache)
        except Exception as exc:  # any cache or connection error: count here instead
            self._warn(what, exc)
            return shared(self.fallback)

    def _warn(self, what: str, exc: Exception) -> None:
        now = time.monotonic()
        with self._lock:
            if self._last_warning and now - self._last_warning < WARNING_INTERVAL:
                return
            self._last_warning = now
        logger.warning(
            "Shared cache unreachable while %s (%s: %s); counting in this process instead.",
            what,
            type(exc).__name__,
            exc,
        )

    def incr(self, key: str, timeout: int) -> int:
        """Add one to ``key`` (created with ``timeout`` seconds to live) and return the count."""

        def bump(cache: Any) -> int:
            if hasattr(cache, "count"):  # core.cache.RedisCache: one round trip
                return int(cache.count(key, timeout))
            return _add(cache, key, 1, timeout)

        return self._call("counting", bump)

    def incr_many(
        self, slots: list[tuple[str, int]], amounts: list[int] | None = None
    ) -> dict[str, int]:
        """``incr`` for several (key, timeout) at once, by ``amounts`` (one each by default):
        one round trip with the Redis backend."""
        steps = amounts or [1] * len(slots)

        def bump_all(cache: Any) -> dict[str, int]:
            if hasattr(cache, "count_many"):  # core.cache.RedisCache
                return dict(cache.count_many(slots, steps))
            return {
                key: _add(cache, key, step, timeout)
                for (key, timeout), step in zip(slots, steps, strict=True)
            }

        return self._call("counting", bump_all)

    def get(self, key: str) -> Any:
        return self._call("reading", lambda cache: cache.get(key))

    def set(self, key: str, value: Any, timeout: int) -> None:
        self._call("writing", lambda cache: cache.set(key, value, timeout))

    def delete_many(self, keys: list[str]) -> None:
        self._call("deleting", lambda cache: cache.delete_many(keys))
        # Also forget what was counted here during an outage.
        self.fallback.delete_many(keys)


def _add(cache: Any, key: str, step: int, timeout: int) -> int:
    """Add ``step`` to ``key`` in any Django cache (created with ``timeout``); the new value."""
    try:
        return int(cache.incr(key, step))
    except ValueError:  # the key's first use
        if cache.add(key, step, timeout):
            return step
        return int(cache.incr(key, step))


counters = FailSafeCounters()

#: The most counts a process reserves at once for one window of one client and scope.
LEASE_LARGEST = 16
#: A reservation takes at most this fraction (1/n) of what its window had left.
LEASE_SHARE = 8
#: How often (seconds) a process forgets the reservations of windows that have ended.
LEASE_PRUNE_INTERVAL = 30.0

#: (counter key, its time to live, the window's limit)
Slot = tuple[str, int, int]


class _Lease:
    __slots__ = ("expires", "last", "limit", "next")

    def __init__(self, first: int, last: int, limit: int, expires: float) -> None:
        self.next, self.last, self.limit, self.expires = first, last, limit, expires


class Leases:
    """A window's counts, handed out by this process from ranges it reserves in the counter.

    Counting every request in the shared cache cost a round trip per request, the largest
    single cost of a move outside its own work (docs/benchmarks.md). Instead a process reserves
    a range of counts with one increment by the range's size and hands them out itself, one per
    request, until the range is used up. Every count is still unique across processes, so a
    window never admits more requests than its limit. What a process reserved and has not yet
    handed out is already counted, so a client can be refused before its limit by what the
    other processes hold unused: at most ``LEASE_LARGEST - 1`` each, and never more than
    ``1 / LEASE_SHARE`` of what the window had left when they reserved it. A process's first
    reservation in a window is a single count (it does not know the window's count yet), so a
    small limit (under ``2 * LEASE_SHARE``) is counted in the shared cache request by request,
    exactly as before, and so is every request of a window whose count has reached its limit.
    """

    def __init__(self, counts: FailSafeCounters, largest: int = LEASE_LARGEST) -> None:
        self._counts = counts
        self._largest = largest
        self._leases: dict[str, _Lease] = {}
        self._lock = threading.Lock()
        self._next_prune = 0.0

    def take(self, slots: list[Slot]) -> dict[str, int]:
        """Each slot's count for this request: from this process's ranges where they last, by
        one round trip for all the others."""
        counted: dict[str, int] = {}
        reserve: list[Slot] = []
        sizes: list[int] = []
        with self._lock:
            for key, timeout, limit in slots:
                lease = self._leases.get(key)
                if lease is not None and lease.limit == limit and lease.next <= lease.last:
                    counted[key] = lease.next
                    lease.next += 1
                    continue
                seen = lease.last if lease is not None and lease.limit == limit else None
                reserve.append((key, timeout, limit))
                sizes.append(self._size(limit, seen))
        if not reserve:
            return counted
        totals = self._counts.incr_many([(key, timeout) for key, timeout, _ in reserve], sizes)
        now = time.time()
        with self._lock:
            for (key, timeout, limit), size in zip(reserve, sizes, strict=True):
                last = totals[key]
                counted[key] = last - size + 1
                self._leases[key] = _Lease(last - size + 2, last, limit, now + timeout)
            if now >= self._next_prune:
                self._prune(now)
        return counted

    def _size(self, limit: int, seen: int | None) -> int:
        if seen is None:
            return 1
        return max(1, min(self._largest, (limit - seen) // LEASE_SHARE))

    def _prune(self, now: float) -> None:
        self._next_prune = now + LEASE_PRUNE_INTERVAL
        for key in [key for key, lease in self._leases.items() if lease.expires <= now]:
            del self._leases[key]

    def forget(self) -> None:
        """Drop every reservation of this process (tests that clear the shared cache)."""
        with self._lock:
            self._leases.clear()


leases = Leases(counters)


class WindowCounterMixin:
    rate: str | None
    num_requests: int
    duration: int
    timer: Any

    def get_ident(self, request: Any) -> str:
        return client_address(request.META)

    def window_slot(self, request: Any, view: Any) -> Slot | None:
        """(counter key, its time to live, limit) of this request's window, or None: not
        counted."""
        if self.rate is None:
            return None
        key = self.get_cache_key(request, view)  # type: ignore[attr-defined]
        if key is None:
            return None
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        return f"{key}:{window}", self.duration + 1, self.num_requests

    def allow_request(self, request: Any, view: Any) -> bool:
        slot = self.window_slot(request, view)
        if slot is None:
            return True
        # DRF asks every throttle of the view in turn (APIView.check_throttles). The first one
        # counts the request in all of their windows at once (leases: one round trip at most)
        # and leaves the counts on the request; the others read theirs from there.
        counted: dict[str, int] | None = getattr(request, "_throttle_counts", None)
        if counted is None or slot[0] not in counted:
            slots = [slot]
            for other in view.get_throttles():
                if isinstance(other, WindowCounterMixin) and type(other) is not type(self):
                    other_slot = other.window_slot(request, view)
                    if other_slot is not None and other_slot[0] not in (counted or {}):
                        slots.append(other_slot)
            counted = {**(counted or {}), **leases.take(slots)}
            request._throttle_counts = counted
        return counted[slot[0]] <= self.num_requests

    def wait(self) -> float:
        return float(max(1.0, self.window_ends - self.now))


class AnonRateThrottle(WindowCounterMixin, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(WindowCounterMixin, throttling.UserRateThrottle):
    pass


def view_scope(view: Any, method: str) -> str | None:
    """The throttle scope of a view for a method: ``throttle_scope`` is a scope, or a mapping
    of HTTP method to scope (a view that both lists and creates)."""
    scope = getattr(view, "throttle_scope", None)
    if isinstance(scope, Mapping):
        scope = scope.get(method)
    return scope if isinstance(scope, str) and scope else None


class ScopedRateThrottle(WindowCounterMixin, throttling.ScopedRateThrottle):
    def window_slot(self, request: Any, view: Any) -> Slot | None:
        # DRF's scoped throttle learns its rate from the view here, before counting.
        scope = view_scope(view, request.method)
        if scope is None:
            return None
        self.scope = scope
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)  # type: ignore[assignment]
        return super().window_slot(request, view)
