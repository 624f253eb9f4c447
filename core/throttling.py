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
``register``, ``account``, ``notify``, ``revoke``, ``match_create``, ``moves``, ``chat`` and
``reads``, each with its own rate (``FACEDOWN_THROTTLE_<SCOPE>``), counted per user, or per
client address when anonymous. ``scope_refusal`` counts a web form's request in a scope too.
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

    def reserve_many(self, slots: list[tuple[str, int, int, int]]) -> dict[str, tuple[int, int]]:
        """For each (key, timeout, limit, largest): add a range of counts to ``key`` and return
        (the range's last count, its size). The size is what is left below ``limit`` over
        ``LEASE_SHARE``, between 1 and ``largest``, by the count at that moment: one round trip
        with the Redis backend, all keys at once."""

        def reserve_all(cache: Any) -> dict[str, tuple[int, int]]:
            if hasattr(cache, "reserve_many"):  # core.cache.RedisCache: one script command
                return dict(cache.reserve_many(slots, LEASE_SHARE))
            ranges = {}
            for key, timeout, limit, largest in slots:
                size = max(1, min(largest, (limit - int(cache.get(key) or 0)) // LEASE_SHARE))
                ranges[key] = (_add(cache, key, size, timeout), size)
            return ranges

        return self._call("counting", reserve_all)

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
#: A reservation takes at most this fraction (1/n) of what its window has left.
LEASE_SHARE = 8
#: How often (seconds) a process forgets the reservations of windows that have ended.
LEASE_PRUNE_INTERVAL = 30.0
#: The most windows a process holds reservations for; beyond, new ones are counted one by one.
LEASE_MAX_WINDOWS = 20_000

#: (counter key, its time to live, the window's limit, when the window ends: epoch seconds)
Slot = tuple[str, int, int, float]


class _Lease:
    __slots__ = ("expires", "last", "next")

    def __init__(self, first: int, last: int, expires: float) -> None:
        self.next, self.last, self.expires = first, last, expires


class ReservedCounts:
    """A window's counts, handed out by this process from ranges it reserves in the counter.

    Counting every request in the shared cache cost a round trip per request, the largest
    single cost of a move outside its own work (docs/benchmarks-history.md). Instead a process
    reserves a range of counts with one increment by the range's size and hands them out itself,
    one per request, until the range is used up. Every count is still unique across processes (while
    the shared counter lives), so a window never admits more requests than its limit. What a
    process reserved and has not yet handed out is already counted, so a client can be refused
    before its limit by what the other processes hold unused: at most ``LEASE_LARGEST - 1``
    each. The shared cache sizes each range from the window's count at that moment, never more
    than ``1 / LEASE_SHARE`` of what is left: a small limit (``2 * LEASE_SHARE`` or less) and a
    window's last counts are counted request by request, exactly as before.

    One reservation per window is in flight at a time in a process: a thread that needs a count
    meanwhile reserves just that one, so two threads never replace each other's ranges. At most
    ``LEASE_MAX_WINDOWS`` windows hold a range (a flood of new client addresses is then counted
    request by request); a window's range is forgotten once the window has ended.
    """

    def __init__(self, counts: FailSafeCounters | None = None) -> None:
        self._counts = counts  # None: the module's ``counters`` (replaceable in tests)
        self._ranges: dict[str, _Lease] = {}
        self._reserving: set[str] = set()
        self._lock = threading.Lock()
        self._next_prune = 0.0

    def take(self, slots: list[Slot]) -> dict[str, int]:
        """Each slot's count for this request: from this process's ranges where they last, by
        one round trip for all the others."""
        counted: dict[str, int] = {}
        reserve: list[tuple[Slot, bool]] = []  # (slot, whether this thread keeps a range)
        with self._lock:
            for slot in slots:
                key, _, limit, _ = slot
                lease = self._ranges.get(key)
                if lease is not None and lease.next <= lease.last:
                    counted[key] = lease.next
                    lease.next += 1
                    continue
                keeps = (
                    limit > 2 * LEASE_SHARE
                    and key not in self._reserving
                    and (lease is not None or len(self._ranges) < LEASE_MAX_WINDOWS)
                )
                if keeps:
                    self._reserving.add(key)
                reserve.append((slot, keeps))
        if not reserve:
            return counted
        try:
            ranges = (self._counts or counters).reserve_many(
                [
                    (key, timeout, limit, LEASE_LARGEST if keeps else 1)
                    for (key, timeout, limit, _), keeps in reserve
                ]
            )
        finally:
            with self._lock:
                self._reserving.difference_update(slot[0] for slot, keeps in reserve if keeps)
        now = time.time()
        with self._lock:
            for (key, _, _, ends), keeps in reserve:
                last, size = ranges[key]
                counted[key] = last - size + 1
                if keeps and size > 1:
                    self._ranges[key] = _Lease(last - size + 2, last, ends)
            if now >= self._next_prune:
                self._prune(now)
        return counted

    def _prune(self, now: float) -> None:
        self._next_prune = now + LEASE_PRUNE_INTERVAL
        for key in [key for key, lease in self._ranges.items() if lease.expires <= now]:
            del self._ranges[key]

    def forget(self) -> None:
        """Drop every reservation of this process (tests that clear the shared cache)."""
        with self._lock:
            self._ranges.clear()


reserved_counts = ReservedCounts()


class WindowCounterMixin:
    rate: str | None
    num_requests: int
    duration: int
    timer: Any

    def get_ident(self, request: Any) -> str:
        return client_address(request.META)

    def window_slot(self, request: Any, view: Any) -> Slot | None:
        """(counter key, its time to live, limit, end) of this request's window, or None: not
        counted."""
        if self.rate is None:
            return None
        key = self.get_cache_key(request, view)  # type: ignore[attr-defined]
        if key is None:
            return None
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        return f"{key}:{window}", self.duration + 1, self.num_requests, self.window_ends

    def allow_request(self, request: Any, view: Any) -> bool:
        slot = self.window_slot(request, view)
        if slot is None:
            return True
        # DRF asks every throttle of the view in turn (APIView.check_throttles). The first one
        # counts the request in all of their windows at once (``reserved_counts``: one round trip
        # at most) and leaves the counts on the request; the others read theirs from there.
        counted: dict[str, int] | None = getattr(request, "_throttle_counts", None)
        if counted is None or slot[0] not in counted:
            slots = [slot]
            for other in view.get_throttles():
                if isinstance(other, WindowCounterMixin) and type(other) is not type(self):
                    other_slot = other.window_slot(request, view)
                    if other_slot is not None and other_slot[0] not in (counted or {}):
                        slots.append(other_slot)
            counted = {**(counted or {}), **reserved_counts.take(slots)}
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


class _ScopeOnly:
    """What DRF's throttles read of a view: its scope, and its throttles (just this one)."""

    def __init__(self, scope: str, throttle: ScopedRateThrottle) -> None:
        self.throttle_scope = scope
        self._throttle = throttle

    def get_throttles(self) -> list[ScopedRateThrottle]:
        return [self._throttle]


def scope_refusal(request: Any, scope: str) -> float | None:
    """Count a plain Django request (a web form) against an API scope, in the same counters
    as the API's requests: the seconds to wait when the scope refuses it, otherwise None."""
    throttle = ScopedRateThrottle()
    if throttle.allow_request(request, _ScopeOnly(scope, throttle)):
        return None
    return throttle.wait()
