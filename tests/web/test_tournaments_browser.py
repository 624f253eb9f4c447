"""In headless Chromium, the tournament pages: a player creates a tournament from the list page
and lands on it as its organiser, with the organiser's controls; another player sees none of
them, joins and withdraws; a Swiss tournament in its second round shows its standings, the
crosstable and its rounds (results of finished tables only) on a 390 px phone without the page
scrolling sideways (the crosstable scrolls in its own box) and on a desktop."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from tests.tournaments.driver import play_matches, tournament
from tests.web.conftest import log_in, shot
from tournaments.models import Entry, Tournament
from tournaments.services.lifecycle import round_check, tournament_start

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
FITS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    # The rounds are moved on by the test itself, under its own clock.
    settings.FACEDOWN_TASK_RUNNER = "off"


def test_create_then_join_and_withdraw_with_controls_for_the_organiser_only(
    new_page: NewPage, user: Callable[[str], Any]
) -> None:
    user("olga")
    user("pia")
    user("quinn")
    page = new_page(width=1280)
    log_in(page, "olga")
    page.locator("#tournaments-link").click()
    page.wait_for_url("**/tournaments")
    page.locator("#game option[value='gops']").wait_for(state="attached")
    page.get_by_label("Name", exact=True).fill("Autumn Swiss")
    page.locator("#opt-num_cards").fill("5")
    page.locator("#t-format").select_option("swiss")
    page.locator("#t-rounds").fill("3")
    page.locator("#tc-kind").select_option("fischer")
    page.locator("#t-max-players").fill("8")
    page.get_by_role("button", name="Create tournament").click()
    page.wait_for_url("**/tournaments/*-*")
    expect(page.locator("#tournament-title")).to_have_text("Autumn Swiss")
    expect(page.locator("#tournament-settings")).to_contain_text("Fischer")
    expect(page.locator("#tournament-settings")).to_contain_text("Maximum players: 8")
    expect(page.locator("#tournament-settings")).to_contain_text("Cards in each hand: 5")
    expect(page.locator("#organiser-panel")).to_be_visible()
    expect(page.locator("#start-button")).to_be_visible()
    detail = page.url
    assert Tournament.objects.get(name="Autumn Swiss").options["num_cards"] == 5
    shot(page, "tournament-organiser")

    page.goto("/tournaments")
    expect(page.locator("#list-registering")).to_contain_text("Autumn Swiss")

    other = new_page(width=390, height=844)
    log_in(other, "pia")
    other.goto(detail)
    expect(other.locator("#join-button")).to_be_visible()
    expect(other.locator("#organiser-panel")).to_be_hidden()
    other.locator("#join-button").click()
    expect(other.locator("#withdraw-button")).to_be_visible()
    expect(other.locator("#why-not")).to_have_text("You are registered.")
    assert Entry.objects.get(user__username="pia").status == "active"
    other.once("dialog", lambda dialog: dialog.accept())
    other.locator("#withdraw-button").click()
    expect(other.locator("#withdraw-button")).to_be_hidden()
    assert Entry.objects.filter(user__username="pia", status="active").count() == 0

    # The organiser invites a player, who joins themselves (nobody is entered by someone
    # else), then disqualifies them; each action is in the event log.
    page.goto(detail)
    page.get_by_label("Invite a player").fill("quinn")
    page.get_by_role("button", name="Invite", exact=True).click()
    expect(page.locator("#events")).to_contain_text("olga invited a player · quinn")
    assert not Entry.objects.get(user__username="quinn").joined
    invitee = new_page(width=390, height=844)
    log_in(invitee, "quinn")
    invitee.goto(detail)
    expect(invitee.locator("#decline-button")).to_be_visible()
    invitee.locator("#join-button").click()
    expect(invitee.locator("#why-not")).to_have_text("You are registered.")
    page.reload()
    expect(page.locator("#entrants")).to_contain_text("quinn")  # no table before round 1
    page.locator("#disqualify-player").select_option("quinn")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#disqualify-form button").click()
    expect(page.locator("#events")).to_contain_text("olga disqualified a player · quinn")
    assert Entry.objects.get(user__username="quinn").status == "disqualified"


def test_standings_crosstable_and_rounds_on_a_phone_and_a_desktop(
    new_page: NewPage, user: Callable[[str], Any]
) -> None:
    now = timezone.now()
    organiser = user("otto")
    players = [user(f"player_with_a_long_name_{i}") for i in range(7)]
    cup = tournament(organiser, players, now=now, format="swiss", rounds=3)
    tournament_start(tournament_id=cup.pk, now=now)
    play_matches(cup.pk, random.Random(3))
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=1))

    for width in (390, 1280):
        page = new_page(width=width, height=844 if width < 600 else 900)
        log_in(page, players[0].username)
        page.goto(f"/tournaments/{cup.pk}")
        expect(page.locator("#standing-rows tr")).to_have_count(7)
        expect(page.locator("#standings-round")).to_have_text("After round 1")
        expect(page.locator("#crosstable tbody tr")).to_have_count(7)
        expect(page.locator("#rounds .round")).to_have_count(2)
        # Round 2 is being played: its tables show players and links, no results.
        second = page.locator("#rounds .round").first
        expect(second).to_contain_text("in progress")
        expect(second.locator("a[href^='/matches/']")).to_have_count(3)
        expect(page.locator("#rounds .round").nth(1)).to_contain_text("Byes:")
        expect(page.locator("#organiser-panel")).to_be_hidden()
        # The results to download, the report file too (two seats); they hold finished
        # tables only (tests/tournaments/test_api.py).
        report = page.locator("#export-trf a")
        expect(report).to_be_visible()
        answer = page.request.get(report.get_attribute("href") or "")
        assert answer.ok and answer.text().startswith("012 ")
        assert page.evaluate(FITS), f"the page scrolls sideways at {width} px"
        # The standings stack into one card per player on a phone: nothing to scroll.
        standings = page.locator("#standings-wrap")
        assert standings.evaluate("(box) => box.scrollWidth <= box.clientWidth")
        shot(page, f"tournament-{width}")
        # The name column stays in view while the crosstable scrolls in its box.
        wrap = page.locator(".crosstable-wrap")
        if width < 600:
            assert wrap.evaluate("(box) => box.scrollWidth > box.clientWidth")
            wrap.evaluate("(box) => { box.scrollLeft = box.scrollWidth; }")
        name = page.locator("#crosstable tbody th").first
        box, cell = wrap.bounding_box(), name.bounding_box()
        assert box is not None and cell is not None and abs(cell["x"] - box["x"]) < 2
