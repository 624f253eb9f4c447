"""In headless Chromium: the API tokens page creates a token with the scopes ticked, shows its
secret once (it works), and revokes it (it no longer works); no sideways scroll at 390 px."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect
from rest_framework.test import APIClient

from accounts.models import AccessToken
from tests.players import API, make_player
from tests.web.test_profiles_browser import OVERFLOW, PHONE, _log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _works(secret: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return int(client.get(f"{API}/accounts/me").status_code)


def test_a_token_is_made_shown_once_and_revoked(new_page: Callable[..., Page]) -> None:
    ann = make_player("ann")
    page = new_page(width=PHONE, height=800)
    _log_in(page, ann)
    page.goto("/tokens")
    expect(page.get_by_role("cell", name="tests", exact=True)).to_be_visible()
    page.get_by_label("Name", exact=True).fill("my bot")
    page.get_by_role("checkbox", name="challenge", exact=True).check()
    page.get_by_role("button", name="Create token").click()
    secret = page.locator("#token-secret-value")
    expect(secret).not_to_be_empty()
    value = secret.text_content() or ""
    assert value.startswith("fdp_") and _works(value) == 200
    made = AccessToken.objects.get(user=ann.user, name="my bot")
    assert made.scopes == ["read", "challenge"] and made.expires_at is not None
    expect(page.get_by_role("cell", name="read, challenge")).to_be_visible()
    assert page.evaluate(OVERFLOW) <= 0, "the tokens page scrolls sideways at 390 px"
    page.get_by_role("button", name="Revoke my bot").click()
    expect(page.get_by_role("cell", name="my bot", exact=True)).to_have_count(0)
    assert _works(value) == 401
