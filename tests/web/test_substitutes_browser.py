"""In headless Chromium: a seat its player left is offered on the match page, a substitute
takes it over from the lobby ("Take over this seat") and lands on the match holding the seat,
and the match page shows who played which steps. No sideways scroll at 390 px."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Dialog, Page, expect

from games.models import Seat, SeatOffer
from tests.players import make_player, start_match
from tests.web.test_newcomer_browser import assert_accessible
from tests.web.test_profiles_browser import OVERFLOW, PHONE, _log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
CORRESPONDENCE = {"kind": "per_step", "per_step_seconds": 2 * 86_400}


def _accept_dialog(dialog: Dialog) -> None:
    dialog.accept()


def test_a_left_seat_is_offered_and_taken_over_from_the_lobby(
    new_page: NewPage, tmp_path: Path
) -> None:
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    dave = make_player("dave")
    match_id = start_match(
        "gops", [alice, bob, carol], options={"num_cards": 5}, time_control=CORRESPONDENCE
    )
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    mine, theirs = new_page(), new_page(width=PHONE, height=844)
    _log_in(mine, alice)
    mine.goto(f"/matches/{match_id}")
    panel = mine.locator("#substitutes-panel")
    expect(panel.get_by_role("button", name="Offer to a substitute")).to_be_visible()
    expect(mine.locator("#offer-seat option")).to_have_text(["Seat 3 (carol)"])
    panel.get_by_role("button", name="Offer to a substitute").click()
    expect(panel.locator("#offer-list")).to_contain_text("Seat 3 (carol) is offered to anyone")
    expect(panel.get_by_role("button", name="Withdraw")).to_be_visible()
    expect(mine.locator("#offer-form")).to_be_hidden()  # one open offer per seat
    offer = SeatOffer.objects.get(match_id=match_id)

    _log_in(theirs, dave)
    theirs.goto("/")
    seats = theirs.locator("#open-seats")
    expect(seats).to_contain_text("Seat 3")
    expect(seats).to_contain_text("offered by alice")
    assert_accessible(theirs, "the lobby with a seat to take over")
    assert theirs.evaluate(OVERFLOW) <= 0, "the lobby's seats to take over scroll sideways"
    theirs.screenshot(path=str(tmp_path / "lobby-seat-390.png"), full_page=True)
    theirs.once("dialog", _accept_dialog)
    seats.get_by_role("button", name="Take over seat 3 of a").click()
    theirs.wait_for_url(f"**/matches/{match_id}")
    expect(theirs.locator("#hand-panel")).to_be_visible()
    assert Seat.objects.get(match_id=match_id, index=2).user_id == dave.user.pk
    assert SeatOffer.objects.get(pk=offer.pk).status == "taken"

    # Alice's page learns of the takeover: the offer is gone, the steps are told.
    tenures = mine.locator("#tenures")
    expect(tenures).to_contain_text("Seat 3: carol, steps 1\u20131")  # an en dash
    expect(tenures).to_contain_text("Seat 3: dave, from step 2")
    expect(mine.locator("#offer-list li")).to_have_count(0)
    expect(theirs.locator("#tenures")).to_contain_text("dave, from step 2")
    assert theirs.evaluate(OVERFLOW) <= 0, "the substitutes panel scrolls sideways at 390 px"
    theirs.screenshot(path=str(tmp_path / "taken-over-390.png"), full_page=True)
