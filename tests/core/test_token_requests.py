"""Token-authenticated API requests skip sessions, CSRF and messages; cookie requests do not."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from accounts.tokens import token_issue

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"
GOPS = {"game": "gops", "seats": ["me", "open"]}


@pytest.fixture
def erin() -> User:
    return User.objects.create_user(username="erin", password=PASSWORD)


def _logged_in(user: User) -> Client:
    client = Client(enforce_csrf_checks=True)
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_a_session_write_without_the_csrf_token_is_refused(erin: User) -> None:
    client = _logged_in(erin)
    refused = client.post("/api/v1/matches", GOPS, content_type="application/json")
    assert refused.status_code == 403
    assert "csrf" in refused.content.decode().lower()
    # With the token from the cookie the same write passes: the session still authenticates.
    client.get("/")
    csrf = client.cookies["csrftoken"].value
    created = client.post(
        "/api/v1/matches", GOPS, content_type="application/json", HTTP_X_CSRFTOKEN=csrf
    )
    assert created.status_code == 201, created.content


def test_a_bad_token_is_refused_even_with_a_valid_session(erin: User) -> None:
    client = _logged_in(erin)
    answer = client.get("/api/v1/accounts/me", HTTP_AUTHORIZATION="Token not-a-token")
    assert answer.status_code == 401


def test_a_token_request_needs_no_csrf_and_touches_no_session(erin: User) -> None:
    key = token_issue(erin, name="tests")[1]
    client = Client(enforce_csrf_checks=True)
    answer: Any = client.post(
        "/api/v1/matches", GOPS, content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}"
    )
    assert answer.status_code == 201, answer.content
    assert not answer.cookies  # no session or CSRF cookie set
    me = client.get("/api/v1/accounts/me", HTTP_AUTHORIZATION=f"Token {key}")
    assert me.status_code == 200 and me.json()["username"] == "erin"


def test_pages_with_a_token_header_still_get_their_session(erin: User) -> None:
    # Only /api/ is skipped: the web pages keep sessions and CSRF whatever the headers say.
    client = _logged_in(erin)
    lobby = client.get("/", HTTP_AUTHORIZATION="Token whatever")
    assert lobby.status_code == 200 and b"erin" in lobby.content
    assert "csrftoken" in lobby.cookies
