"""In headless Chromium: the lobby and match pages at phone widths (360, 390, 430 px) without
horizontal scrolling and with the hand near the top; seeks in the lobby; the chat panel; the
optional move confirmation; "add my own randomness"; the audit link on a finished match.
Screenshots at desktop and phone widths go to the test's tmp dir."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.models import Match
from social.models import Seek
from tests.players import make_player, play_to_end, start_match
from tests.web.conftest import log_in
from tests.web.test_browser import is_over

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
PHONES = (360, 390, 430)
FITS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
WIDEST = """() => {
    const edge = document.documentElement.clientWidth + 0.5;
    const over = (e) => e.getBoundingClientRect().right > edge;
    return [...document.querySelectorAll('body *')]
        .filter((e) => over(e) && ![...e.children].some(over))
        .slice(0, 8)
        .map((e) => `${e.tagName}#${e.id}.${e.className} ${e.getBoundingClientRect().right}`);
}"""


def snap(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def assert_fits(page: Page, where: str) -> None:
    assert page.evaluate(FITS), f"{where} scrolls sideways: {page.evaluate(WIDEST)}"


def test_lobby_and_match_fit_phone_widths_with_the_hand_near_the_top(
    new_page: NewPage, user: Callable[[str], Any], tmp_path: Path
) -> None:
    user("wanda")
    opponent = make_player("xavier")
    host = make_player("yolanda")
    match_id = start_match("hols-der-geier", [host, opponent, make_player("zeno")])
    Match.objects.filter(pk=match_id).update(created_by=host.user)
    played = start_match("gops", [opponent, host], options={"num_cards": 3})
    play_to_end(played, [opponent, host])
    mine = start_match("gops", [host, opponent], options={"num_cards": 13})
    host.post(f"/matches/{mine}/chat", {"text": "a long message " * 8})

    desktop = new_page(width=1280)
    log_in(desktop, "wanda")
    snap(desktop, tmp_path, "lobby-desktop")
    for width in PHONES:
        page = new_page(width=width, height=780)
        page.goto("/login")
        page.get_by_label("Username").fill("yolanda")
        page.get_by_label("Password").fill("correct-horse-battery")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url("**/")
        page.locator("#mine-status:not(:has-text('Loading'))").wait_for()
        assert_fits(page, f"the lobby at {width} px")
        snap(page, tmp_path, f"lobby-{width}")
        page.goto(f"/matches/{mine}")
        expect(page.locator("#hand button.playable").first).to_be_visible()
        page.locator("#chat-log li").first.wait_for()
        assert_fits(page, f"the match page at {width} px")
        top = page.locator("#hand").bounding_box()
        assert top is not None and top["y"] < 450, f"the hand starts at {top} at {width} px"
        snap(page, tmp_path, f"match-{width}")
        page.goto(f"/matches/{played}")
        expect(page.locator("#verify-panel")).to_be_visible()
        assert_fits(page, f"a finished match at {width} px")
    desktop.goto(f"/matches/{mine}")
    snap(desktop, tmp_path, "match-desktop")
    assert sorted(p.name for p in tmp_path.glob("*.png")) == sorted(
        ["lobby-desktop.png", "match-desktop.png"]
        + [f"{kind}-{w}.png" for kind in ("lobby", "match") for w in PHONES]
    )


def test_confirm_each_move_and_the_audit_link(
    new_page: NewPage, user: Callable[[str], Any], embedded_worker: None
) -> None:
    user("olga")
    page = new_page(width=390, height=800)
    log_in(page, "olga")
    page.locator("#game").select_option("gops")
    page.locator("#opt-num_cards").fill("3")
    page.locator("#own-seed").check()
    page.locator("#own-seed-text").fill("olgas-own-entropy")
    page.get_by_role("button", name="Create match").click()
    page.wait_for_url(re.compile(r"/matches/[0-9a-f-]{36}$"))
    match_id = page.url.rsplit("/", 1)[1]
    assert Match.objects.get(pk=match_id).seats.get(index=0).client_seed == "olgas-own-entropy"

    page.locator("#confirm-moves").check()
    card = page.locator("#hand button.playable:not([disabled])").first
    card.click()
    expect(page.locator("#confirm-move")).to_be_visible()
    expect(page.locator("#hand button.armed")).to_have_count(1)
    page.wait_for_timeout(300)
    assert not Match.objects.get(pk=match_id).moves.filter(seat=0).exists()  # armed, not played
    page.reload()  # the setting stays in this browser
    expect(page.locator("#confirm-moves")).to_be_checked()
    for _ in range(3):  # three cards; the last step is played by the server
        if is_over(page):
            break
        meta = page.locator("#match-meta").inner_text()
        page.locator("#hand button.playable:not([disabled])").first.click()
        page.locator("#confirm-move").click()
        page.wait_for_function(
            "(before) => document.querySelector('#match-meta').textContent !== before", arg=meta
        )
    expect(page.locator("#status-line")).to_contain_text("Match over", timeout=15_000)
    expect(page.locator("#verify-panel")).to_be_visible()
    link = page.locator("#audit-link")
    assert link.get_attribute("href") == f"/api/v1/matches/{match_id}/audit"
    expect(page.locator("#verify-panel")).to_contain_text("facedown-verify")
    answer = page.request.get(f"/api/v1/matches/{match_id}/audit")
    assert answer.status == 200 and answer.json()["match"] == match_id


def test_seeks_in_the_lobby_and_chat_at_the_table(
    new_page: NewPage, user: Callable[[str], Any]
) -> None:
    user("petra")
    user("quinn")
    petra = new_page()
    log_in(petra, "petra")
    petra.locator("#game").select_option("gops")
    petra.locator("#opt-num_cards").fill("3")
    petra.get_by_role("button", name="Find opponents instead").click()
    expect(petra.locator("#seeks li")).to_contain_text("your seek, waiting")

    quinn = new_page(width=390, height=800)
    log_in(quinn, "quinn")
    item = quinn.locator("#seeks li", has_text="by petra")
    item.get_by_role("button", name="Play petra").click()
    quinn.wait_for_url(re.compile(r"/matches/[0-9a-f-]{36}$"))
    match_id = quinn.url.rsplit("/", 1)[1]
    petra.wait_for_url(f"**/matches/{match_id}", timeout=15_000)  # petra's lobby follows
    assert set(Seek.objects.values_list("status", flat=True)) == {"matched"}

    quinn.locator("#chat-text").fill("good game, petra")
    quinn.get_by_role("button", name="Send").click()
    expect(petra.locator("#chat-log")).to_contain_text("good game, petra", timeout=10_000)
    petra.locator("#chat-text").fill("you too")
    petra.locator("#chat-text").press("Enter")
    expect(quinn.locator("#chat-log")).to_contain_text("you too", timeout=10_000)
