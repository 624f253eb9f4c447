"""Per-account login lockout: exponential back-off, the same answer for every username."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts import lockout
from tests.players import API, make_player

PASSWORD = "correct-horse-battery"


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[list[float]]:
    """The lockout's wall clock, moved by hand; five failures lock, from one second, capped."""
    settings.FACEDOWN_LOGIN_LOCKOUT_FAILURES = 5
    settings.FACEDOWN_LOGIN_LOCKOUT_BASE = 1
    settings.FACEDOWN_LOGIN_LOCKOUT_MAX = 8
    now = [1_000_000.0]
    monkeypatch.setattr(lockout.time, "time", lambda: now[0])
    cache.clear()
    yield now
    cache.clear()


_addresses = itertools.cycle(range(1, 255))


def login(username: str, password: str = "wrong-password-1") -> Any:
    body = {"username": username, "password": password}
    # A new address per request: the lockout is per account, whatever the address.
    client = APIClient(REMOTE_ADDR=f"192.0.2.{next(_addresses)}")
    return client.post(f"{API}/accounts/token", body, format="json")


def fail(username: str, times: int) -> list[int]:
    return [login(username).status_code for _ in range(times)]


@pytest.mark.parametrize("who", ["existing", "unknown"])
def test_repeated_failures_lock_the_name_with_the_same_answer_whether_it_exists(db, clock, who):
    if who == "existing":
        make_player("victim")
    assert fail("victim", 5) == [400] * 5
    locked = login("victim")
    assert locked.status_code == 429
    assert locked["Content-Type"] == "application/problem+json"
    assert locked.json()["code"] == "throttled"
    assert locked["Retry-After"] == "2"  # one second left, rounded up as DRF does
    # Even the right password is refused while the name is locked.
    assert login("victim", PASSWORD).status_code == 429


def test_the_delay_doubles_up_to_the_cap_and_a_success_forgets_the_failures(db, clock):
    make_player("victim")
    delays = []
    for _ in range(7):
        assert login("victim").status_code == 400
        until = cache.get(lockout._keys("victim")[1])
        delays.append(None if until is None else until - clock[0])
        clock[0] += (delays[-1] or 0) + 0.01  # wait the lock out
    assert delays == [None, None, None, None, 1, 2, 4]
    assert login("victim").status_code == 400
    assert cache.get(lockout._keys("victim")[1]) - clock[0] == 8
    clock[0] += 8.01
    assert login("victim").status_code == 400
    assert cache.get(lockout._keys("victim")[1]) - clock[0] == 8  # 16 s, capped
    # Neither case nor Unicode width makes a new name.
    assert login("VICTIM").status_code == 429
    assert login("\uff56ictim").status_code == 429
    clock[0] += 8.01
    assert login("Victim", PASSWORD).status_code == 200
    assert fail("victim", 4) == [400] * 4  # counting starts over


def test_other_names_are_not_locked(db, clock):
    make_player("victim")
    make_player("bystander")
    fail("victim", 6)
    assert login("bystander", PASSWORD).status_code == 200


def test_the_browser_login_is_locked_out_alike(db: None, clock: list[float]) -> None:
    """The web client's login form counts failures and refuses a locked name, right password
    or not, exactly as ``POST /accounts/token`` does (which then also refuses it)."""
    from django.test import Client

    make_player("erin")
    browser = Client()
    for _ in range(5):
        page = browser.post("/login", {"username": "erin", "password": "wrong-password-1"})
        assert page.status_code == 200 and "_auth_user_id" not in browser.session
    page = browser.post("/login", {"username": "erin", "password": PASSWORD})
    assert page.status_code == 200 and "Too many failed logins" in page.content.decode()
    assert "_auth_user_id" not in browser.session
    assert login("erin", PASSWORD).status_code == 429
    clock[0] += 2  # the one-second lock is over
    page = browser.post("/login", {"username": "erin", "password": PASSWORD})
    assert page.status_code == 302 and "_auth_user_id" in browser.session
