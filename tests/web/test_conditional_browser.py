"""In headless Chromium: conditional bids on the match page. Alice adds two rules and removes
one, the API holds what the page shows, Bob's page and a spectator's have no editor and show
nothing of them; no sideways scroll at 390 px."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from games.models import ConditionalMoves
from tests.players import make_player, start_match
from tests.web.test_newcomer_browser import assert_accessible
from tests.web.test_profiles_browser import OVERFLOW, PHONE, _log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_alice_keeps_conditional_bids_that_only_she_sees(
    new_page: Callable[..., Page], settings
) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"  # the rules stay unplayed while the pages look
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 5}, time_control={"per_step_seconds": 86400}
    )
    mine, theirs, watching = new_page(width=PHONE, height=844), new_page(), new_page()
    for page, player in ((mine, alice), (theirs, bob), (watching, carol)):
        _log_in(page, player)
        page.goto(f"/matches/{match_id}")
        expect(page.locator("#status-line")).not_to_have_text("Loading…")

    editor = mine.locator("#conditional")
    expect(editor).to_be_visible()
    expect(editor).to_contain_text("No rules.")
    mine.get_by_label("When the pot is").fill("4, 5")
    mine.get_by_label("bid", exact=True).fill("5")
    mine.get_by_role("button", name="Add rule").click()
    expect(editor.locator("li")).to_have_text(["When the pot is 4 or 5, bid 5 Remove"])
    mine.get_by_label("bid", exact=True).fill("1")
    mine.get_by_role("button", name="Add rule").click()
    expect(editor.locator("li")).to_have_count(2)
    expect(editor.locator("li").nth(1)).to_contain_text("When the pot is anything, bid 1")
    mine.get_by_label("bid", exact=True).fill("9")
    mine.get_by_role("button", name="Add rule").click()
    expect(mine.locator("#conditional-error")).to_contain_text("rules.2.card")
    editor.locator("li").nth(0).get_by_role("button", name="Remove").click()
    expect(editor.locator("li")).to_have_count(1)
    assert ConditionalMoves.objects.get(match_id=match_id).rules == [{"pot": None, "card": 1}]
    assert_accessible(mine, "the match page with conditional bids")
    assert mine.evaluate(OVERFLOW) <= 0, "the conditional bids scroll sideways at 390 px"

    theirs.reload()
    expect(theirs.locator("#status-line")).not_to_have_text("Loading…")
    expect(theirs.locator("#conditional")).to_be_visible()
    expect(theirs.locator("#conditional")).to_contain_text("No rules.")
    expect(watching.locator("#conditional")).to_be_hidden()
    for page in (theirs, watching):
        expect(page.locator("body")).not_to_contain_text("anything, bid")
