"""With the token cache on, a request still sees its account as the database has it: the cache
keeps who a token belongs to, never the account's row."""

from __future__ import annotations

import random
from typing import Any

from rest_framework.test import APIClient

from accounts.authentication import forget_cached_tokens
from accounts.models import User
from notify.models import NotificationSettings
from tests.players import API, Player

PASSWORD = "correct-horse-battery"
ADDRESSES = ("a@example.com", "b@example.com", "c@example.com")


def test_writes_through_any_path_are_read_fresh_through_the_cached_token(
    alice: Player, settings: Any
) -> None:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    forget_cached_tokens()
    browser = APIClient()  # another path: the web client's session, no token cache
    browser.force_login(alice.user)
    rng = random.Random(7)
    me = f"{API}/accounts/me"

    def stored() -> tuple[str, bool]:
        email = User.objects.values_list("email", flat=True).get(pk=alice.user.pk)
        verified = NotificationSettings.objects.filter(
            user_id=alice.user.pk, verified_email__iexact=email
        ).exists()
        return email, bool(email) and verified

    for trial in range(20):
        email = rng.choice(ADDRESSES)
        way = rng.choice(("token", "session", "elsewhere", "verified"))
        if way == "elsewhere":  # another machine wrote the row
            User.objects.filter(pk=alice.user.pk).update(email=email)
        elif way == "verified":  # its owner opened the verification link
            NotificationSettings.objects.update_or_create(
                user_id=alice.user.pk, defaults={"verified_email": stored()[0]}
            )
        else:
            client = alice.client if way == "token" else browser
            body = {"email": email, "current_password": PASSWORD}
            answer = client.patch(me, body, format="json")
            assert answer.status_code == 200, (trial, answer.content)
            assert answer.json()["email"] == stored()[0] == email, (trial, way)
        read = alice.get("/accounts/me").json()["email"]
        prefs = alice.get("/accounts/me/notifications").json()
        email_now, verified_now = stored()
        assert (read, prefs["email"], prefs["email_verified"]) == (
            email_now,
            email_now,
            verified_now,
        ), (trial, way)


def test_the_export_reads_the_account_as_stored(alice: Player, settings: Any) -> None:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    forget_cached_tokens()
    assert alice.get("/accounts/me").status_code == 200  # cached now
    User.objects.filter(pk=alice.user.pk).update(email="x@example.com")  # another machine
    exported = alice.get("/accounts/me/export").json()["account"]
    assert exported["email"] == "x@example.com"
