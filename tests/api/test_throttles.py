"""Throttles: one budget per scope, counted per user or per trusted client address."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework.test import APIClient

from core.client_address import client_address
from tests.players import API

WRONG = {"username": "nobody", "password": "wrong-password-1"}


def login(client: APIClient, **meta: str) -> Any:
    return client.post(f"{API}/accounts/token", WRONG, format="json", **meta)


def test_a_new_forwarded_for_per_request_does_not_escape_the_login_throttle(db, rates, settings):
    settings.FACEDOWN_TRUSTED_PROXY_HOPS = 0
    rates(login="3/hour")
    client = APIClient()
    answers = [login(client, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(5)]
    assert answers == [400, 400, 400, 429, 429]


def test_with_one_trusted_proxy_the_rightmost_forwarded_address_is_the_client(db, rates, settings):
    settings.FACEDOWN_TRUSTED_PROXY_HOPS = 1
    rates(login="2/hour")
    client = APIClient()
    # The client forges the left part; the proxy appended the real address on the right.
    first = [
        login(client, HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, 198.51.100.7").status_code
        for n in range(3)
    ]
    assert first == [400, 400, 429]
    # Another client behind the same proxy has its own budget.
    assert login(client, HTTP_X_FORWARDED_FOR="10.9.9.1, 198.51.100.8").status_code == 400


@pytest.mark.parametrize(
    ("hops", "forwarded", "expected"),
    [
        (0, "198.51.100.1", "192.0.2.10"),
        (1, "", "192.0.2.10"),
        (1, "198.51.100.1", "198.51.100.1"),
        (1, "6.6.6.6, 198.51.100.1", "198.51.100.1"),
        (2, "6.6.6.6, 198.51.100.1, 10.0.0.2", "198.51.100.1"),
        (2, "198.51.100.1", "192.0.2.10"),  # fewer entries than proxies: not through them all
        (1, "6.6.6.6, not-an-address", "192.0.2.10"),
        (1, " 2001:db8::1 ", "2001:db8::1"),
    ],
)
def test_client_address(settings, hops, forwarded, expected):
    settings.FACEDOWN_TRUSTED_PROXY_HOPS = hops
    meta = RequestFactory().get("/", REMOTE_ADDR="192.0.2.10", HTTP_X_FORWARDED_FOR=forwarded).META
    assert client_address(meta) == expected


def test_failed_logins_do_not_block_sign_ups(db, rates):
    rates(login="2/hour", register="5/hour")
    client = APIClient()
    assert [login(client).status_code for _ in range(3)] == [400, 400, 429]
    signed_up = client.post(
        f"{API}/accounts/register",
        {"username": "newcomer", "password": "a-long-new-password"},
        format="json",
    )
    assert signed_up.status_code == 201, signed_up.content


def test_each_scope_has_its_own_budget_and_every_refusal_is_a_throttle(alice, bob, rates):
    rates(match_create="1/hour", reads="3/hour")
    first = alice.create("gops", ["me", {"user": bob.name}], options={"num_cards": 3})
    assert first.status_code == 201
    second = alice.create("gops", ["me", {"user": bob.name}], options={"num_cards": 3})
    assert second.status_code == 429
    assert second["Content-Type"] == "application/problem+json"
    assert second.json()["code"] == "throttled"
    assert 0 < int(second["Retry-After"]) <= 3601
    # Reads are counted apart from creation, and per user.
    assert [alice.get("/matches").status_code for _ in range(4)] == [200, 200, 200, 429]
    assert bob.get("/matches").status_code == 200
    # A move is not a read: still allowed while reads are throttled.
    match_id = first.json()["id"]
    assert bob.post(f"/matches/{match_id}/join").status_code == 200


def test_anonymous_reads_are_counted_per_address(db, rates):
    rates(reads="2/hour")
    here, there = APIClient(REMOTE_ADDR="192.0.2.1"), APIClient(REMOTE_ADDR="192.0.2.2")
    assert [here.get(f"{API}/games").status_code for _ in range(3)] == [200, 200, 429]
    assert there.get(f"{API}/games").status_code == 200


def test_a_busy_client_is_counted_by_ranges_and_still_stopped_at_its_limit(
    alice, rates, monkeypatch
):
    """With a limit far off, a client's requests are counted in ranges reserved in the shared
    cache (core.throttling.ReservedCounts): one round trip for every request's windows at first,
    then one per LEASE_LARGEST requests. Near the limit, request by request again; never past it."""
    from core import throttling
    from tests.core.test_throttle_reserved_counts import CountingCounters

    counting = CountingCounters()
    monkeypatch.setattr(throttling, "reserved_counts", throttling.ReservedCounts(counting))
    rates(reads="150/hour")
    answers = [alice.get("/matches").status_code for _ in range(40)]
    assert answers == [200] * 40
    # user (6000/min) and reads: both windows each time; first one count, then ranges of
    # min(16, what is left // 8) (150: 18, 16, 12, 10 ...).
    assert counting.round_trips <= 6
    answers += [alice.get("/matches").status_code for _ in range(140)]
    assert answers.count(200) == 150 and answers[150:] == [429] * 30


def test_spent_account_and_notification_budgets_never_block_revoking_a_token(alice, rates):
    """Whoever holds a token can spend every other budget; its owner can still change the
    password, and log out (never throttled) even with the overall budget spent too."""
    rates(account="2/hour", notify="2/hour", login="2/hour", revoke="3/hour", user="12/hour")
    me = f"{API}/accounts/me"
    spent = [alice.client.patch(me, {}, format="json").status_code for _ in range(3)]
    spent += [
        alice.client.patch(f"{me}/notifications", {}, format="json").status_code for _ in range(3)
    ]
    assert spent == [200, 200, 429, 200, 200, 429]
    for _ in range(3):
        login(APIClient())
    changed = alice.post(
        "/accounts/password",
        {"current_password": "correct-horse-battery", "password": "a-brand-new-secret"},
    )
    assert changed.status_code == 200, changed.content
    alice.client.credentials(HTTP_AUTHORIZATION=f"Token {changed.json()['token']}")
    # Wrong passwords spend the budget of rotation and password change, reads the overall one.
    rotations = [
        alice.post("/accounts/token/rotate", {"current_password": "wrong"}).status_code
        for _ in range(3)
    ]
    assert rotations == [400, 400, 429]  # the password change spent one
    assert [alice.get("/accounts/me").status_code for _ in range(3)] == [200, 200, 429]
    assert alice.post("/accounts/logout").status_code == 204
    assert alice.get("/accounts/me").status_code == 401
