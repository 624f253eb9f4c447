"""Shared token revocation: every revoking action leaves a record other web processes read, and
a process answering from its token cache stops accepting a token revoked elsewhere within
``FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS``. (tests/machines/ checks the same across two real
gunicorn servers.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.admin import helpers
from django.db import connection, transaction
from django.test import Client

from accounts.authentication import forget_cached_tokens
from accounts.models import AccessToken, TokenRevocation, User
from accounts.revocation import revocation_last, revocation_record, revocations_since
from tests.players import Player, make_player

POLL = 0.3


@pytest.fixture(autouse=True)
def _cache_on(settings: Any) -> Iterator[None]:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    settings.FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS = POLL
    forget_cached_tokens()
    yield
    forget_cached_tokens()


def _works(player: Player) -> bool:
    return bool(player.get("/accounts/me").status_code == 200)


def test_a_revocation_recorded_elsewhere_is_applied_within_the_interval(db: None) -> None:
    alice, bob = make_player(), make_player()
    assert _works(alice) and _works(bob)  # both now in this process's cache
    # What another machine's logout does: the token row goes and the revocation is recorded;
    # this process's cache is not told.
    with transaction.atomic():
        AccessToken.objects.filter(user=alice.user).delete()
        revocation_record([alice.user.pk])
    revoked = time.monotonic()
    assert _works(alice)  # still served from the cache, within the interval...
    # the interval, plus the time of a request or two on a busy two-core machine
    slack = 1.5
    while _works(alice):
        assert time.monotonic() - revoked < POLL + slack, "the revocation was never applied"
        time.sleep(0.02)
    assert time.monotonic() - revoked <= POLL + slack
    assert _works(bob)  # ...and only the revoked user was dropped


def test_numbers_follow_commit_order_under_concurrent_revokers(transactional_db: None) -> None:
    """The second revoker waits on the clock row until the first commits, so a reader that
    sees number n sees every lower number: no revocation slips behind a reader's mark."""
    alice, bob = make_player(), make_player()
    start = revocation_last()
    first_holds = threading.Event()
    release = threading.Event()

    def slow_revoker() -> None:
        with transaction.atomic():
            revocation_record([alice.user.pk])
            first_holds.set()
            release.wait(5)
        connection.close()

    def second_revoker() -> None:
        revocation_record([bob.user.pk])
        connection.close()

    slow = threading.Thread(target=slow_revoker)
    slow.start()
    assert first_holds.wait(5)
    second = threading.Thread(target=second_revoker)
    second.start()
    second.join(0.5)
    assert second.is_alive()  # waiting for the first's number to commit
    assert revocations_since(start) == (start, set())
    release.set()
    slow.join(5)
    second.join(5)
    last, users = revocations_since(start)
    assert (last, users) == (start + 2, {alice.user.pk, bob.user.pk})


def _action(console: Client, action: str, user: User) -> None:
    answer = console.post(
        "/admin/accounts/user/", {"action": action, helpers.ACTION_CHECKBOX_NAME: [str(user.pk)]}
    )
    assert answer.status_code == 302


PASSWORD = "correct-horse-battery"
ACTIONS: dict[str, Callable[[Player, Client], None]] = {
    "logout": lambda p, _c: p.post("/accounts/logout"),
    "token rotation": lambda p, _c: p.post(
        "/accounts/token/rotate", {"current_password": PASSWORD}
    ),
    "password change": lambda p, _c: p.post(
        "/accounts/password", {"current_password": PASSWORD, "password": "a-brand-new-secret"}
    ),
    "account deletion": lambda p, _c: p.client.delete(
        "/api/v1/accounts/me", {"password": PASSWORD}, format="json"
    ),
    "operator deactivation": lambda p, c: _action(c, "deactivate_users", p.user),
    "operator token reset": lambda p, c: _action(c, "reset_tokens", p.user),
}


@pytest.mark.parametrize("name", list(ACTIONS))
def test_every_revoking_action_records_the_user(db: None, name: str) -> None:
    operator = User.objects.create_superuser("root", password="operator-password-1")
    console = Client()
    console.force_login(operator)
    alice = make_player()
    before = revocation_last()
    ACTIONS[name](alice, console)
    assert revocations_since(before)[1] == {alice.user.pk}
    assert TokenRevocation.objects.filter(user=alice.user).count() == 1


def test_unticking_active_on_the_user_page_records_a_revocation(db: None) -> None:
    operator = User.objects.create_superuser("root", password="operator-password-1")
    console = Client()
    console.force_login(operator)
    alice = make_player()
    page = f"/admin/accounts/user/{alice.user.pk}/change/"
    form = {
        "username": alice.name,
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "initial-date_joined_0": "2026-01-01",
        "initial-date_joined_1": "00:00:00",
    }  # "is_active" absent: the box is unticked
    answer = console.post(page, form)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert not User.objects.get(pk=alice.user.pk).is_active
    assert TokenRevocation.objects.filter(user=alice.user).exists()


def test_renaming_on_the_user_page_records_a_revocation(db: None, settings: Any) -> None:
    """The token cache keeps each token's user name: a rename must reach every process."""
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    operator = User.objects.create_superuser("root", password="operator-password-1")
    console = Client()
    console.force_login(operator)
    alice = make_player()
    assert alice.get("/accounts/me").json()["username"] == alice.name  # cached
    form = {
        "username": "alicia",
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "initial-date_joined_0": "2026-01-01",
        "initial-date_joined_1": "00:00:00",
    }
    answer = console.post(f"/admin/accounts/user/{alice.user.pk}/change/", form)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert TokenRevocation.objects.filter(user=alice.user).exists()
