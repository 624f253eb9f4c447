"""In headless Chromium: pause and abort by agreement on the match page. Alice proposes a pause,
Bob accepts it and both pages say "paused until" once; an abort proposal is declined; a
spectator reads the banner without buttons; a fast match offers no pause. No sideways scroll at
390 px."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Dialog, Page, Route, expect

from games.models import Match, Proposal
from tests.players import make_player, start_match
from tests.web.test_newcomer_browser import assert_accessible
from tests.web.test_profiles_browser import OVERFLOW, PHONE, _log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
DAY = 86_400
CORRESPONDENCE = {"kind": "per_step", "per_step_seconds": 3 * DAY}


def _accept_dialog(dialog: Dialog) -> None:
    dialog.accept()


def test_a_pause_is_proposed_and_accepted_and_an_abort_declined(
    new_page: NewPage, tmp_path: Path
) -> None:
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 3}, time_control=CORRESPONDENCE
    )
    mine, theirs, watching = new_page(), new_page(width=PHONE, height=844), new_page()
    for page, player in ((mine, alice), (theirs, bob), (watching, carol)):
        _log_in(page, player)
        page.goto(f"/matches/{match_id}")
        expect(page.locator("#status-line")).not_to_have_text("Loading…")
    expect(watching.locator("#propose")).to_be_hidden()
    expect(mine.get_by_role("button", name="Propose a pause")).to_be_visible()

    # Alice proposes a pause, a week ahead by default.
    mine.get_by_role("button", name="Propose a pause").click()
    banner = theirs.locator("#proposal")
    expect(banner).to_contain_text("alice proposes a pause until")
    expect(banner).to_contain_text("Accepted so far: alice.")
    expect(banner).to_contain_text("Open until")
    expect(watching.locator("#proposal")).to_contain_text("alice proposes a pause")
    expect(watching.locator("#proposal button")).to_have_count(0)
    expect(mine.locator("#proposal").get_by_role("button")).to_have_text(["Withdraw"])
    expect(mine.locator("#propose")).to_be_hidden()  # one open proposal at a time
    expect(banner.get_by_role("button")).to_have_text(["Accept", "Decline"])
    assert_accessible(theirs, "the match page with an open proposal")
    theirs.screenshot(path=str(tmp_path / "proposal-390.png"), full_page=True)
    assert theirs.evaluate(OVERFLOW) <= 0, "the proposal banner scrolls sideways at 390 px"
    proposal = Proposal.objects.get(match_id=match_id)
    assert proposal.until is not None and proposal.kind == "pause"

    # Bob accepts: the pause starts, and each page says so in one line.
    banner.get_by_role("button", name="Accept").click()
    for page in (mine, theirs, watching):
        expect(page.locator("#paused")).to_contain_text("paused until")
        expect(page.locator("#proposal")).to_be_hidden()
        expect(page.get_by_text(re.compile("paused until", re.I))).to_have_count(1)
        expect(page.locator("#seat-rows")).not_to_contain_text("held until")
    assert Match.objects.get(pk=match_id).paused_until == proposal.until
    mine.screenshot(path=str(tmp_path / "paused-1100.png"), full_page=True)

    # Alice proposes to abort (after a confirm); Bob declines and the match goes on.
    mine.once("dialog", _accept_dialog)
    mine.get_by_role("button", name="Propose to abort").click()
    expect(banner).to_contain_text("alice proposes to abort this match")
    banner.get_by_role("button", name="Decline").click()
    expect(banner).to_be_hidden()
    expect(mine.locator("#proposal")).to_be_hidden()
    expect(mine.locator("#propose")).to_be_visible()
    expect(theirs.get_by_role("button", name="Propose a pause")).to_be_visible()
    assert theirs.evaluate(OVERFLOW) <= 0, "the proposing controls scroll sideways at 390 px"
    declined = Proposal.objects.filter(match_id=match_id, kind="abort").get()
    assert declined.status == Proposal.Status.DECLINED and declined.answered_by == 1
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE


def test_a_fast_match_offers_no_pause_and_errors_show_inline(new_page: NewPage) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    fast = start_match(
        "gops",
        [alice, bob],
        options={"num_cards": 3},
        time_control={"kind": "per_step", "per_step_seconds": 3600},
    )
    page = new_page()
    _log_in(page, alice)
    page.goto(f"/matches/{fast}")
    expect(page.get_by_role("button", name="Propose to abort")).to_be_visible()
    expect(page.locator("#pause-form")).to_be_hidden()

    # Bob proposes to abort through the API just before Alice's own proposal reaches the
    # server: hers is refused (409 proposal_open), and the server's words show by the button.
    def bob_first(route: Route) -> None:
        answer = bob.post(f"/matches/{fast}/proposals", {"kind": "abort"})
        assert answer.status_code == 201, answer.content
        route.continue_()

    page.route("**/api/v1/matches/*/proposals", bob_first)
    page.once("dialog", _accept_dialog)
    page.get_by_role("button", name="Propose to abort").click()
    expect(page.locator("#propose-error")).to_contain_text("open")
    expect(page.locator("#proposal")).to_contain_text("bob proposes to abort")
    expect(page.locator("#proposal").get_by_role("button")).to_have_text(["Accept", "Decline"])
