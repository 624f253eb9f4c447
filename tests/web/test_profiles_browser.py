"""In headless Chromium: the rematch button of a finished match, the profile, leaderboard and
series pages, and a series created from the lobby. Each page is shot at desktop and at 390 px
(under the test's tmp dir) and must not scroll sideways at phone width."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.players import Player, make_player, start_match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
PHONE = 390
OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _log_in(page: Page, player: Player) -> None:
    page.goto("/login")
    page.get_by_label("Username").fill(player.name)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")


def _shots(pages: dict[int, Page], path: str, ready: str, tmp_path: Path, name: str) -> None:
    """Open ``path`` at each width, wait for ``ready`` to be visible, shoot, check overflow."""
    for width, page in pages.items():
        page.goto(path)
        expect(page.locator(ready).first).to_be_visible()
        page.screenshot(path=str(tmp_path / f"{name}-{width}.png"), full_page=True)
        assert page.evaluate(OVERFLOW) <= 0, f"{name} scrolls sideways at {width} px"


def test_rematch_profile_leaderboard_and_series_pages(
    new_page: NewPage, tmp_path: Path, settings: Any
) -> None:
    # The pages, not the rating rules (tests/api/test_ratings.py): two resignations at step 1
    # between the same players are rated here, and two players make a board.
    settings.FACEDOWN_RATING_MIN_TURNS = 0
    settings.FACEDOWN_RATING_PAIR_LIMIT = 2
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 1
    ann, ben = make_player("ann"), make_player("ben")
    match_id = start_match("gops", [ann, ben], options={"num_cards": 3})
    assert ben.post(f"/matches/{match_id}/resign").status_code == 200
    series = ann.post(
        "/series",
        {
            "game": "gops",
            "seats": ["me", {"user": "ben"}],
            "options": {"num_cards": 3},
            "matches": 2,
        },
    ).json()
    first = series["matches"][0]["id"]
    assert ben.post(f"/matches/{first}/join").status_code == 200
    assert ben.post(f"/matches/{first}/resign").status_code == 200

    desktop, phone = new_page(), new_page(width=PHONE, height=844)
    for page in (desktop, phone):
        _log_in(page, ann)
    pages = {1100: desktop, PHONE: phone}

    # The finished match offers a rematch; asking for it opens the new match.
    _shots(pages, f"/matches/{match_id}", "#rematch", tmp_path, "finished-match")
    desktop.locator("#rematch").click()
    desktop.wait_for_url(
        lambda url: re.search(r"/matches/[0-9a-f-]{36}$", url) is not None and match_id not in url
    )
    rematch_id = desktop.url.rsplit("/", 1)[1]
    assert rematch_id != match_id
    assert ann.match(match_id)["rematch"] == rematch_id
    phone.goto(f"/matches/{match_id}")
    expect(phone.get_by_role("link", name="Go to the rematch")).to_have_attribute(
        "href", f"/matches/{rematch_id}"
    )

    # Profile: ann won both finished matches.
    _shots(pages, "/players/ann", "#rating-rows tr", tmp_path, "profile")
    expect(phone.locator("#streak")).to_have_text("Won the last 2 matches.")
    expect(phone.locator("#rating-rows tr").first).to_contain_text("GOPS")
    expect(phone.locator("#recent li")).to_have_count(2)

    # Leaderboard: ann above ben, linked to their profiles.
    _shots(pages, "/leaderboard?game=gops", "#board-rows tr", tmp_path, "leaderboard")
    names = phone.locator("#board-rows tr td:nth-child(2)").all_inner_texts()
    assert names == ["ann", "ben"]
    phone.get_by_role("link", name="ben").click()
    phone.wait_for_url("**/players/ben")
    expect(phone.locator("#streak")).to_have_text("Did not win the last 2 matches.")

    # Series standings, reached from a match of the series.
    phone.goto(f"/matches/{first}")
    phone.get_by_role("link", name="Series standings").click()
    phone.wait_for_url(f"**/series/{series['id']}")
    _shots(pages, f"/series/{series['id']}", "#standing-rows tr", tmp_path, "series")
    expect(phone.locator("#series-status")).to_have_text("running: 1 of 2 matches finished.")
    rows = phone.locator("#standing-rows tr").all_inner_texts()
    assert [row.split("\t")[:3] for row in rows] == [["ann", "1", "1"], ["ben", "1", "0"]]
    expect(phone.locator("#series-matches li")).to_have_count(2)


def test_a_series_from_the_lobby(new_page: NewPage, tmp_path: Path) -> None:
    cat = make_player("cat")
    page = new_page(width=PHONE, height=844)
    _log_in(page, cat)
    page.locator("#game").select_option("gops")
    page.locator("#opt-num_cards").fill("3")
    second = page.locator("#seats li").nth(1)
    second.locator(".seat-kind").select_option("bot")
    page.locator("#series-matches").fill("3")
    page.locator("#rated").uncheck()
    # The lobby's own width at phone size is another change's: the new fields stay inside
    # the form, as wide as the fields before them.
    page.screenshot(path=str(tmp_path / "lobby-series.png"), full_page=True)
    box, form = (page.locator(s).bounding_box() for s in ("#series-matches", "#create-form"))
    assert box is not None and form is not None
    assert box["x"] + box["width"] <= form["x"] + form["width"]
    page.get_by_role("button", name="Create match").click()
    page.wait_for_url(re.compile(r"/series/[0-9a-f-]{36}$"))
    expect(page.locator("#series-title")).to_have_text("Series of 3 (GOPS)")
    expect(page.locator("#series-matches li")).to_have_count(1)
    match = cat.match(
        page.locator("#series-matches a").first.get_attribute("href").rsplit("/", 1)[1]
    )
    assert match["rated"] is False and match["series"]["index"] == 0
