"""Access-token authentication with a short per-process cache of token → identity.

``Authorization: Bearer <secret>`` (or ``Token <secret>``, the older keyword) names a personal
access token (``accounts.tokens``), found by the SHA-256 digest of its secret. The cache keeps
that lookup off most requests for ``FACEDOWN_TOKEN_CACHE_SECONDS``. A revocation on any machine
(``accounts.revocation``) still takes effect everywhere within
``FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS``: before answering from the cache, a process reads the
revocations made since its last look, when that look is older than the interval. An expired
token is refused from the cache too (it holds the expiry).

The cache keeps the identity only (the user's id, name and whether it is a bot, which change
only with a revocation), never the row: another process may change the e-mail address or the
password meanwhile. Each request gets a new ``User`` built with ``Model.from_db`` from those
fields, every other field deferred, so reading one reads the database as it is now.

When a token was last used is written at most once per ``FACEDOWN_TOKEN_LAST_USED_SECONDS`` per
process, for all the tokens it saw meanwhile in one statement, before the view runs (outside
its transaction).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.utils import timezone
from django.utils.translation import gettext_noop
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from accounts.models import AccessToken, User
from accounts.revocation import revocation_last, revocations_since
from accounts.scopes import TokenGrant
from accounts.tokens import SECRET, secret_digest

KEYWORDS = ("bearer", "token")
MSG_INVALID = "Invalid token."
MSG_HEADER = "Invalid token header."


@dataclass(frozen=True)
class _Entry:
    until: float  # monotonic: when the entry goes stale
    user_id: int
    username: str
    is_bot: bool
    grant: TokenGrant


_cache: dict[str, _Entry] = {}
_lock = threading.Lock()
_poll_lock = threading.Lock()
_MAX_ENTRIES = 10_000


class _Seen:
    """The last revocation number this process has applied, and when it started that look."""

    seq: int | None = None
    looked: float = float("-inf")
    generation = 0  # bumped whenever users are dropped, so a lookup racing a drop is not kept


class _Used:
    """Tokens used since this process last wrote ``last_used_at``, and when it did."""

    ids: set[int] = set()
    written: float = time.monotonic()


def _forget_users(user_ids: set[int]) -> None:
    with _lock:
        for key in [k for k, entry in _cache.items() if entry.user_id in user_ids]:
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


def _used(token_id: int, now: float) -> None:
    """Note the use; once the interval has passed, write every noted token's last use."""
    with _lock:
        _Used.ids.add(token_id)
        if now - _Used.written < settings.FACEDOWN_TOKEN_LAST_USED_SECONDS:
            return
        ids, _Used.ids, _Used.written = _Used.ids, set(), now
    AccessToken.objects.filter(pk__in=ids).update(last_used_at=timezone.now())


def _epoch(moment: datetime | None) -> float | None:
    return moment.timestamp() if moment is not None else None


def _entry_read(digest: str, until: float) -> _Entry:
    row = (
        AccessToken.objects.filter(digest=digest, user__is_active=True)
        .values_list("id", "scopes", "expires_at", "user_id", "user__username", "user__is_bot")
        .first()
    )
    if row is None:
        raise AuthenticationFailed(MSG_INVALID)
    token_id, scopes, expires_at, user_id, username, is_bot = row
    grant = TokenGrant.of(token_id, scopes, _epoch(expires_at))
    return _Entry(until, user_id, username, bool(is_bot), grant)


def token_identity(secret: str) -> tuple[User, TokenGrant]:
    """The user and grant of a token's secret, or ``AuthenticationFailed``."""
    if not SECRET.fullmatch(secret):
        raise AuthenticationFailed(MSG_INVALID)
    digest = secret_digest(secret)
    ttl = settings.FACEDOWN_TOKEN_CACHE_SECONDS
    now = time.monotonic()
    _revocations_apply(now, ttl)
    with _lock:
        entry = _cache.get(digest)
        generation = _Seen.generation
    if entry is None or entry.until <= now:
        entry = _entry_read(digest, now + ttl)
        with _lock:
            if ttl > 0 and generation == _Seen.generation:  # no revocation applied meanwhile
                if len(_cache) >= _MAX_ENTRIES:
                    _cache.clear()
                _cache[digest] = entry
    if entry.grant.expires is not None and entry.grant.expires <= time.time():
        raise AuthenticationFailed(gettext_noop("This token has expired."))
    _used(entry.grant.id, now)
    return _identity(entry), entry.grant


def _identity(entry: _Entry) -> User:
    """A user as the database would load it with only these fields: any other field is
    deferred, read from the database when first used."""
    columns = ["id", "username", "is_bot"]
    return User.from_db(DEFAULT_DB_ALIAS, columns, [entry.user_id, entry.username, entry.is_bot])


def token_from_header(header: str) -> str | None:
    """The secret of an ``Authorization`` value naming a token, None for another scheme."""
    keyword, _, rest = header.partition(" ")
    if keyword.lower() not in KEYWORDS:
        return None
    if not rest or " " in rest:
        raise AuthenticationFailed(MSG_HEADER)
    return rest


class AccessTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Any) -> tuple[User, TokenGrant] | None:
        # From ``META``: ``request.headers`` builds a dictionary of every header on first use.
        header = request.META.get("HTTP_AUTHORIZATION")
        if not isinstance(header, str):
            return None
        secret = token_from_header(header)
        return token_identity(secret) if secret is not None else None

    def authenticate_header(self, request: Any) -> str:
        return "Token"


# drf-spectacular registers an extension when it is subclassed (its ``__init_subclass__`` is
# untyped): defined here, it is registered whenever the authentication class is loaded.
class AccessTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """How the OpenAPI schema names the token: an HTTP bearer credential."""

    target_class = "accounts.authentication.AccessTokenAuthentication"
    name = "accessToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal access token (`Token <secret>` works too); its scopes "
            "limit what it may do (docs/programs.md).",
        }


def forget_cached_tokens() -> None:
    """Drop every cached token, and the revocation mark with them: the next look starts from
    the log as it is then (it may have been emptied and started again meanwhile)."""
    with _lock:
        _cache.clear()
        _Seen.generation += 1
        _Seen.seq = None
