"""A stolen token is not a stolen account: changing the address or the token needs the
password, a reset goes only to a verified address, and the reset mail leaves after the answer."""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import User
from tests.notify.conftest import verify
from tests.players import API, Player

PASSWORD = "correct-horse-battery"
NEW_PASSWORD = "a-brand-new-secret"


def _email_of(player: Player) -> str:
    return User.objects.values_list("email", flat=True).get(pk=player.user.pk)


def _patch(player: Player, body: dict[str, Any]) -> Any:
    return player.client.patch(f"{API}/accounts/me", body, format="json")


def _reset(email: str) -> Any:
    return APIClient().post(f"{API}/accounts/password-reset", {"email": email}, format="json")


def test_a_token_alone_cannot_change_the_address_or_the_token(alice: Player) -> None:
    alice.user.email = "alice@example.com"
    alice.user.save()
    for body in ({"email": "thief@example.com"}, {"email": "", "current_password": "guess-1"}):
        refused = _patch(alice, body)
        assert refused.status_code == 400, body
        assert refused.json()["code"] == "validation_error"
        assert list(refused.json()["errors"]) == ["current_password"]
        assert _email_of(alice) == "alice@example.com"
    for body in ({}, {"current_password": "guess-2"}):
        rotated = alice.post("/accounts/token/rotate", body)
        assert rotated.status_code == 400 and list(rotated.json()["errors"]) == ["current_password"]
        assert alice.get("/accounts/me").status_code == 200  # the token still works
    changed = _patch(alice, {"email": "new@example.com", "current_password": PASSWORD})
    assert changed.status_code == 200 and changed.json()["email"] == "new@example.com"
    assert _email_of(alice) == "new@example.com"
    # The same address again changes nothing and needs nothing.
    assert _patch(alice, {"email": "new@example.com"}).status_code == 200


def test_a_reset_goes_only_to_a_verified_address(
    alice: Player, jobs: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice.user.email = "alice@example.com"
    alice.user.save()  # set, never verified: it may be anyone's
    with django_capture_on_commit_callbacks(execute=True):
        unverified = _reset("alice@example.com")
        unknown = _reset("nobody@example.com")
    assert unverified.status_code == unknown.status_code == 202
    assert unverified.json() == unknown.json()
    assert mail.outbox == []
    verify(alice.user)
    with django_capture_on_commit_callbacks(execute=True):
        assert _reset("alice@example.com").status_code == 202
    assert [message.to for message in mail.outbox] == [["alice@example.com"]]


def test_the_reset_request_does_the_same_work_for_any_address(
    alice: Player, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Nothing is looked up or mailed inside the request: its time tells nothing."""
    settings.FACEDOWN_TASK_RUNNER = "off"  # the job stays queued: nothing runs in the request
    alice.user.email = "alice@example.com"
    alice.user.save()
    verify(alice.user)
    seen = []
    for email in ("alice@example.com", "nobody@example.com"):
        with (
            CaptureQueriesContext(connection) as queries,
            django_capture_on_commit_callbacks(execute=True),
        ):
            assert _reset(email).status_code == 202
        seen.append(len(queries))
    assert seen == [0, 0] and mail.outbox == []


def test_the_mailed_link_opens_a_page_that_sets_the_password(
    alice: Player, jobs: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice.user.email = "alice@example.com"
    alice.user.save()
    verify(alice.user)
    with django_capture_on_commit_callbacks(execute=True):
        _reset("alice@example.com")
    (message,) = mail.outbox
    link = re.search(r"https?://\S+/reset-password\?\S+", message.body)
    assert link, message.body
    path = link.group(0).split("/", 3)[3]
    browser = Client()
    page = browser.get(f"/{path}")
    assert page.status_code == 200 and b'name="password1"' in page.content
    form = page.context["form"]
    data = {"uid": form["uid"].value(), "token": form["token"].value()}
    mismatched = browser.post(
        "/reset-password", {**data, "password1": NEW_PASSWORD, "password2": "something-else"}
    )
    assert mismatched.status_code == 400
    done = browser.post(
        "/reset-password", {**data, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert done.status_code == 200 and done.context["done"]
    assert alice.get("/accounts/me").status_code == 401  # every token revoked
    login = APIClient().post(
        f"{API}/accounts/token", {"username": "alice", "password": NEW_PASSWORD}, format="json"
    )
    assert login.status_code == 200
    used = browser.post(
        "/reset-password",
        {**data, "password1": "yet-another-one-1", "password2": "yet-another-one-1"},
    )
    assert used.status_code == 400 and "invalid or has expired" in used.content.decode()
    linkless = browser.post("/reset-password", {"password1": "x", "password2": "x"})
    assert linkless.status_code == 400 and "link in your reset mail" in linkless.content.decode()


def test_verification_mails_to_one_address_are_limited_per_day(
    alice: Player, settings: Any, jobs: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.FACEDOWN_EMAIL_VERIFY_PER_ADDRESS = 2
    target = f"victim-{uuid.uuid4().hex[:12]}@example.com"  # counted in Redis across runs
    answers = []
    for email in (target, "", target, "", target):
        with django_capture_on_commit_callbacks(execute=True):
            answers.append(_patch(alice, {"email": email, "current_password": PASSWORD}))
    assert [answer.status_code for answer in answers] == [200, 200, 200, 200, 429]
    assert answers[-1].json()["code"] == "throttled" and "Retry-After" in answers[-1]
    assert _email_of(alice) == ""  # the refused change saved nothing
    assert [message.to for message in mail.outbox] == [[target], [target]]
    registered = APIClient().post(
        f"{API}/accounts/register",
        {"username": "dora", "password": "a-long-new-password", "email": target.upper()},
        format="json",
    )
    assert registered.status_code == 429
    assert not User.objects.filter(username="dora").exists()
