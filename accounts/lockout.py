"""Per-account login lockout with exponential back-off.

Failed logins are counted per normalised, case-folded username in the shared cache (falling
back to this process while it is down, like the throttles), whether or not the account exists,
so the answer never tells which names are taken. From the ``FACEDOWN_LOGIN_LOCKOUT_FAILURES``-th
failure on, each failure locks the name for ``FACEDOWN_LOGIN_LOCKOUT_BASE`` seconds,
doubling with every failure up to ``FACEDOWN_LOGIN_LOCKOUT_MAX``; the count is kept
``FACEDOWN_LOGIN_LOCKOUT_WINDOW`` seconds from the first failure. A locked name is refused
before its password is checked, with the same answer as a throttle (429 ``throttled`` with
``Retry-After``). A successful login (or a password reset) forgets the failures.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from rest_framework.exceptions import Throttled

from accounts.usernames import username_normalise
from core.throttling import counters


class LoginLockedOut(Throttled):
    """Too many failed logins for this username: answered exactly like a throttle."""


def _keys(username: str) -> tuple[str, str]:
    name = username_normalise(username).casefold()
    digest = hashlib.sha256(name.encode()).hexdigest()[:32]
    return f"login-failures:{digest}", f"login-locked:{digest}"


def login_lock_check(*, username: str) -> None:
    """Raise ``LoginLockedOut`` while ``username`` is locked."""
    _, locked_key = _keys(username)
    until = counters.get(locked_key)
    if until is None:
        return
    wait = float(until) - time.time()
    if wait > 0:
        raise LoginLockedOut(wait=wait)


def login_failure_record(*, username: str) -> None:
    failures_key, locked_key = _keys(username)
    failures = counters.incr(failures_key, settings.FACEDOWN_LOGIN_LOCKOUT_WINDOW)
    over = failures - settings.FACEDOWN_LOGIN_LOCKOUT_FAILURES
    if over < 0:
        return
    delay = min(
        settings.FACEDOWN_LOGIN_LOCKOUT_MAX,
        settings.FACEDOWN_LOGIN_LOCKOUT_BASE * 2 ** min(over, 32),
    )
    counters.set(locked_key, time.time() + delay, int(delay) + 1)


def login_failures_forget(*, username: str) -> None:
    counters.delete_many(list(_keys(username)))
