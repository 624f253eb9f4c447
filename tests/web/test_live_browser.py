"""The web client on the ASGI server (a real uvicorn process, tests/live/conftest.py): the match
page follows the match's stream (EventSource with a ticket) and the title counts the matches
waiting for the player, from the user stream."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.live.conftest import Server, asgi_servers  # noqa: F401
from tests.players import make_player, start_match
from tests.web.conftest import PASSWORD, TIMEOUT_MS


@pytest.fixture
def asgi_page(
    browser: Browser,
    asgi_servers: list[Server],  # noqa: F811
) -> Iterator[Callable[[], Page]]:
    contexts = []
    errors: list[str] = []

    def make() -> Page:
        context = browser.new_context(base_url=f"http://127.0.0.1:{asgi_servers[0].port}")
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_the_match_page_follows_the_stream(
    asgi_page: Callable[[], Page], transactional_db: None
) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    alice.user.set_password(PASSWORD)
    alice.user.save()
    match_id = start_match("gops", [alice, bob])
    start_match("gops", [bob, alice])
    page = asgi_page()
    page.goto("/login")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")
    expect(page).to_have_title(re.compile(r"^\(2\) "))  # two matches wait for alice
    assert alice.move(match_id, 1, {"card": 3}).status_code == 202
    page.goto(f"/matches/{match_id}")
    expect(page.locator("#status-line")).to_have_text("Submitted. Waiting for bob…")
    expect(page.locator("#match")).to_have_attribute("data-live", "stream")
    expect(page).to_have_title(re.compile(r"^\(1\) GOPS"))
    # Bob's bid resolves the step; the stream brings it at once (the guard timer is 20 s).
    assert bob.move(match_id, 1, {"card": 5}).status_code == 202
    expect(page.locator("#status-line")).to_have_text("Your move: pick a card.", timeout=4000)
    expect(page).to_have_title(re.compile(r"^\(2\) GOPS"), timeout=4000)
