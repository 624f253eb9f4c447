"""The screen-reader mode is the account's: PATCH /accounts/me stores it (a strict boolean,
anything else a problem that changes nothing), and the pages carry it to the browser (the body's
data-reader, the top bar's switch, the profile's checkbox). The mode itself: tests/web/
test_reader_browser.py."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from games.services.matches import SeatSpec, match_create
from tests.players import make_player

pytestmark = pytest.mark.django_db


def test_the_account_stores_the_mode_and_refuses_anything_but_a_boolean() -> None:
    alice = make_player()
    assert alice.client.get("/api/v1/accounts/me").json()["screen_reader"] is False
    answer = alice.client.patch("/api/v1/accounts/me", {"screen_reader": True}, format="json")
    assert answer.status_code == 200 and answer.json()["screen_reader"] is True
    refused = alice.client.patch("/api/v1/accounts/me", {"screen_reader": "yes"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "validation_error"
    assert "screen_reader" in refused.json()["errors"]
    alice.user.refresh_from_db()
    assert alice.user.screen_reader is True


def test_the_pages_carry_the_mode_its_switches_and_the_reader_panel() -> None:
    user = User.objects.create_user(username="ears", password="a-long-browser-password")
    match = match_create(
        creator=user, game="gops", seats=[SeatSpec("me"), SeatSpec("bot", bot="random")]
    )
    browser = Client()
    browser.force_login(user)
    off = browser.get(f"/matches/{match.id}").content.decode()
    assert (
        'data-reader="on"' not in off
        and 'id="reader-toggle"' in off
        and 'aria-pressed="false"' in off
    )
    assert 'id="reader" ' in off and 'role="log"' in off and "/assets/reader.js" in off
    user.screen_reader = True
    user.save(update_fields=["screen_reader"])
    on = browser.get(f"/matches/{match.id}").content.decode()
    assert 'data-reader="on"' in on and 'aria-pressed="true"' in on
    profile = browser.get("/players/ears").content.decode()
    assert 'id="reader-pref" type="checkbox" aria-describedby="reader-pref-help" checked' in profile
    for script in ("reader.js", "reader_pref.js"):
        assert browser.get(f"/assets/{script}").status_code == 200
    # Another player's profile has no switch of yours.
    make_player("other")
    assert 'id="reader-pref"' not in browser.get("/players/other").content.decode()
