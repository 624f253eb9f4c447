"""In headless Chromium: the seats' clocks of a timed match tick in the browser for the seats to
move and stop for a seat that moved, byo-yomi periods and an opponent's vacation show; the lobby
offers correspondence clocks; the own profile's vacation panel starts and ends a vacation. No
sideways scroll at 390 px."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Match
from games.time_controls import TimeControl, after_counting, iso, zone
from tests.players import Player, make_player, start_match
from tests.web.test_newcomer_browser import assert_accessible
from tests.web.test_profiles_browser import OVERFLOW, PHONE, _log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
DAY = 86_400
FISCHER = {"kind": "fischer", "initial_seconds": 600, "increment_seconds": 60, "max_seconds": 900}
BYOYOMI = {"kind": "byoyomi", "main_seconds": 3 * DAY, "periods": 5, "period_seconds": DAY}


def _clock(page: Page, seat: int) -> object:
    return page.locator(f"#seat-rows .seat-clock[data-seat='{seat}']")


def _first_move(player: Player, match_id: str) -> None:
    seen = player.match(match_id)
    answer = player.move(match_id, seen["step"], seen["legal_moves"][0])
    assert answer.status_code == 202, answer.content


def test_clocks_tick_stop_after_a_move_and_show_periods_and_vacations(
    new_page: NewPage, tmp_path: Path
) -> None:
    ann, ben = make_player("ann"), make_player("ben")
    timed = start_match("gops", [ann, ben], options={"num_cards": 3}, time_control=FISCHER)
    desktop, phone = new_page(), new_page(width=PHONE, height=844)
    _log_in(desktop, ann)
    _log_in(phone, ben)
    desktop.goto(f"/matches/{timed}")
    phone.goto(f"/matches/{timed}")

    # Both seats are to move: both clocks run, and count down second by second.
    mine = _clock(desktop, 0)
    expect(desktop.locator("#seat-rows .seat-clock.running")).to_have_count(2)
    expect(mine).to_have_text(re.compile(r"^0:(10:00|09:\d\d)"))
    before = mine.locator(".clock-time").inner_text()
    expect(mine.locator(".clock-time")).not_to_have_text(before, timeout=2500)
    expect(desktop.locator("#deadline")).to_contain_text("Deadline")

    # Ann moves: her clock stops where it was; Ben sees a dash for her, his own still runs.
    _first_move(ann, timed)
    expect(desktop.locator("#seat-rows .seat-clock.running")).to_have_count(1)
    expect(mine).not_to_have_class(re.compile("running"))
    stopped = mine.locator(".clock-time").inner_text()
    desktop.wait_for_timeout(1200)
    assert mine.locator(".clock-time").inner_text() == stopped
    expect(_clock(phone, 0).locator(".clock-time")).to_have_text("—")
    expect(_clock(phone, 1)).to_have_class(re.compile("running"))
    assert_accessible(desktop, "a timed match page")
    desktop.screenshot(path=str(tmp_path / "clocks-1100.png"), full_page=True)
    phone.screenshot(path=str(tmp_path / "clocks-390.png"), full_page=True)
    assert phone.evaluate(OVERFLOW) <= 0, "the timed match scrolls sideways at 390 px"

    # Byo-yomi: the main bank, then its periods; Ben's vacation holds his clock, Ann sees why.
    slow = start_match("gops", [ann, ben], options={"num_cards": 3}, time_control=BYOYOMI)
    away = ben.post(
        "/accounts/me/vacation", {"until": (timezone.now() + timedelta(days=2)).isoformat()}
    )
    assert away.status_code == 200, away.content
    desktop.goto(f"/matches/{slow}")
    expect(_clock(desktop, 0)).to_contain_text("+ 5\u00d71d")
    expect(_clock(desktop, 0).locator(".clock-time")).to_have_text(re.compile(r"^(3d|2d 23h)$"))
    expect(_clock(desktop, 1)).to_contain_text("on vacation until")
    expect(_clock(desktop, 1)).not_to_have_class(re.compile("running"))
    phone.goto(f"/matches/{slow}")
    expect(_clock(phone, 1)).to_contain_text("on vacation until")
    phone.screenshot(path=str(tmp_path / "byoyomi-390.png"), full_page=True)
    assert phone.evaluate(OVERFLOW) <= 0, "the byo-yomi match scrolls sideways at 390 px"


def test_the_lobby_offers_correspondence_clocks(new_page: NewPage) -> None:
    ann, _ = make_player("ann"), make_player("ben")
    page = new_page()
    _log_in(page, ann)
    page.locator("#game").select_option("gops")
    second = page.locator("#seats li").nth(1)
    second.locator(".seat-kind").select_option("user")
    second.locator(".seat-user").fill("ben")
    expect(page.locator("#tc-weekend-pause")).to_be_hidden()
    page.locator("#tc-kind").select_option("fischer")
    page.get_by_label("Pause on weekends").check()
    page.get_by_role("button", name="Create match").click()
    page.wait_for_url(re.compile(r"/matches/[0-9a-f-]{36}$"))
    made = Match.objects.get(pk=page.url.rsplit("/", 1)[1])
    assert made.time_control is not None
    assert made.time_control["kind"] == "fischer"
    assert made.time_control["initial_seconds"] == 3 * DAY
    assert made.time_control["max_seconds"] == 7 * DAY
    assert made.time_control["weekend_pause"] is True


def test_the_vacation_panel_starts_and_ends_a_vacation(new_page: NewPage, tmp_path: Path) -> None:
    ann, _ = make_player("ann"), make_player("ben")
    page = new_page(width=PHONE, height=844)
    _log_in(page, ann)
    page.goto("/players/ben")
    expect(page.locator("#profile-status")).not_to_have_text("Loading…")
    expect(page.locator("#vacation")).to_have_count(0)  # only on one's own profile

    page.goto("/players/ann")
    state = page.locator("#vacation-state")
    expect(state).to_have_text("Your vacation bank holds 7.0 days.")
    # More than the bank: the API's words, inline.
    page.get_by_label("Go on vacation until").fill(
        (timezone.localdate() + timedelta(days=20)).isoformat()
    )
    page.get_by_role("button", name="Go on vacation").click()
    expect(page.locator("#vacation-error")).to_contain_text("Your vacation bank holds")

    page.get_by_label("Go on vacation until").fill(
        (timezone.localdate() + timedelta(days=3)).isoformat()
    )
    page.get_by_role("button", name="Go on vacation").click()
    expect(state).to_contain_text("On vacation until")
    expect(page.locator("#vacation-error")).to_be_hidden()
    user = User.objects.get(pk=ann.user.pk)
    assert user.vacation_until is not None and user.vacation_until > timezone.now()
    assert_accessible(page, "the own profile's vacation panel")
    page.screenshot(path=str(tmp_path / "vacation-390.png"), full_page=True)
    assert page.evaluate(OVERFLOW) <= 0, "the profile scrolls sideways at 390 px"

    page.get_by_role("button", name="Come back now").click()
    expect(state).to_contain_text("Your vacation bank holds")
    assert User.objects.get(pk=ann.user.pk).vacation_until <= timezone.now()

    with page.expect_response(
        lambda r: r.url.endswith("/me/vacation") and r.request.method == "PATCH"
    ):
        page.get_by_label("Automatic vacation").uncheck()
    page.locator("#vacation-zone").select_option("Europe/Berlin")
    page.get_by_role("button", name="Save time zone").click()
    expect(page.get_by_role("button", name="Save time zone")).to_be_hidden()
    user = User.objects.get(pk=ann.user.pk)
    assert user.time_zone == "Europe/Berlin" and user.auto_vacation is False


COUNT = """([match, clock, now]) => {
    const state = Facedown.clock.seatState(match, clock, Date.parse(now), {});
    return [state.text, state.extra, state.running, state.notes.map((n) => n[0])];
}"""


def test_the_countdown_skips_weekends_and_counts_byoyomi_periods(new_page: NewPage) -> None:
    # The page's own arithmetic at fixed moments, against the server's (games/time_controls.py).
    page = new_page()
    page.goto("/login")
    page.add_script_tag(url="/assets/api.js")
    page.add_script_tag(url="/assets/clock.js")
    friday_noon = datetime(2026, 11, 27, 12, tzinfo=UTC)  # three days from here, weekends off
    tc = TimeControl.of({"kind": "fischer", "initial_seconds": 3 * DAY, "weekend_pause": True})
    ends = after_counting(friday_noon, 3 * DAY * 1000, zone("Europe/Berlin"))
    clock = {
        "seat": 0,
        "remaining": 3 * DAY,
        "periods_left": None,
        "running_since": iso(friday_noon),
        "expires_at": iso(ends),
        "time_zone": "Europe/Berlin",
        "vacation_until": None,
    }
    match = {"time_control": {"kind": tc.kind, "weekend_pause": True}}
    sunday, monday = "2026-11-29T12:00:00Z", "2026-11-30T05:00:00Z"
    # 11 hours counted on Friday (Berlin's Saturday starts at 23:00 UTC), none on the weekend.
    assert page.evaluate(COUNT, [match, clock, sunday]) == [
        "2d 13h",
        None,
        False,
        ["weekend pause"],
    ]
    assert page.evaluate(COUNT, [match, clock, monday]) == ["2d 7h", None, True, []]

    byoyomi = {"time_control": {"kind": "byoyomi", "period_seconds": DAY}}
    overtime = {**clock, "remaining": 3600, "periods_left": 3, "time_zone": None}
    overtime["expires_at"] = iso(friday_noon + timedelta(seconds=3600 + 3 * DAY))
    assert page.evaluate(COUNT, [byoyomi, overtime, "2026-11-27T12:30:00Z"]) == [
        "0:30:00",
        "+ 3\u00d71d",
        True,
        [],
    ]
    # Into the second of three periods: 20 hours of it left, one more after it.
    assert page.evaluate(COUNT, [byoyomi, overtime, "2026-11-28T17:00:00Z"]) == [
        "20:00:00",
        "+ 1\u00d71d",
        True,
        [],
    ]
