"""Token authentication with a short per-process cache of token → identity.

A move submission is a hot path; looking the token up costs a database round trip on every
request. The cache keeps that lookup off the path for ``FACEDOWN_TOKEN_CACHE_SECONDS``. A
revocation on any machine (``accounts.revocation``) still takes effect everywhere within
``FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS``: before answering from the cache, a process reads
the revocations made since its last look, when that look is older than the interval.

The cache keeps the identity only (the user's id and name, which change only when the account
is closed, a revocation), never the row: another process may change the e-mail address or the
password meanwhile. Each request gets a new ``User`` built with ``Model.from_db`` from those
two fields, every other field deferred, so reading one reads the database as it is now.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from accounts.models import User
from accounts.revocation import revocation_last, revocations_since

#: token key → (expires, user id, username)
_cache: dict[str, tuple[float, int, str]] = {}
_lock = threading.Lock()
_poll_lock = threading.Lock()
_MAX_ENTRIES = 10_000


class _Seen:
    """The last revocation number this process has applied, and when it started that look."""

    seq: int | None = None
    looked: float = float("-inf")
    generation = 0  # bumped whenever users are dropped, so a lookup racing a drop is not kept


def _forget_users(user_ids: set[int]) -> None:
    with _lock:
        for key in [k for k, (_, user_id, _n) in _cache.items() if user_id in user_ids]:
            del _cache[key]
        _Seen.generation += 1


def _revocations_apply(now: float, ttl: float) -> None:
    """Bring the cache up to date with every revocation committed before ``now`` - interval."""
    interval = settings.FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS
    if now - _Seen.looked < interval:
        return
    with _poll_lock:
        if now - _Seen.looked < interval:
            return  # another thread looked while this one waited
        started = time.monotonic()  # a revocation committed before this moment is seen below
        if _Seen.seq is None or started - _Seen.looked > ttl:
            # First look, or idle past the cache lifetime (every entry is stale anyway).
            last = revocation_last()
            forget_cached_tokens()
        else:
            last, users = revocations_since(_Seen.seq)
            if users:
                _forget_users(users)
        _Seen.seq, _Seen.looked = last, started


class CachedTokenAuthentication(TokenAuthentication):
    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        """DRF's, reading the header from ``META``: DRF reads it through ``request.headers``,
        which builds a dictionary of every header on first use (measured in
        docs/benchmarks-history.md, eleventh round). Only the plain form ``Token <letters and
        digits>`` is taken here, where both readings agree; any other header is DRF's."""
        header = request.META.get("HTTP_AUTHORIZATION")
        if isinstance(header, str):
            keyword, _, key = header.partition(" ")
            if keyword.lower() == self.keyword.lower() and key.isascii() and key.isalnum():
                return self.authenticate_credentials(key)
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        ttl = settings.FACEDOWN_TOKEN_CACHE_SECONDS
        if ttl <= 0:
            return super().authenticate_credentials(key)
        now = time.monotonic()
        _revocations_apply(now, ttl)
        with _lock:
            hit = _cache.get(key)
            generation = _Seen.generation
        if hit is not None and hit[0] > now:
            return _identity(key, hit[1], hit[2])
        user, token = super().authenticate_credentials(key)
        with _lock:
            if generation == _Seen.generation:  # no revocation was applied meanwhile
                if len(_cache) >= _MAX_ENTRIES:
                    _cache.clear()
                _cache[key] = (now + ttl, user.pk, user.username)
        return user, token


def _identity(key: str, user_id: int, username: str) -> tuple[User, Token]:
    """A user and token as the database would load them with only these fields: any other
    field is deferred, read from the database when first used."""
    user = User.from_db(DEFAULT_DB_ALIAS, ["id", "username"], [user_id, username])
    token = Token.from_db(DEFAULT_DB_ALIAS, ["key", "user_id"], [key, user_id])
    token.user = user
    return user, token


def forget_cached_tokens() -> None:
    with _lock:
        _cache.clear()
        _Seen.generation += 1
