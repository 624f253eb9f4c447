"""In headless Chromium, challenges in the lobby between two players in two browser contexts:
alice (English, 1280 px) sends one from the new-match form, sees it under hers, bob (German,
390 px) sees it under his and declines it with a reason alice then reads; a second one bob
accepts (the match starts, both reach it); a third alice cancels and it leaves bob's lobby. And
the lobby's finished-match cards at 390 and 1280 px: none overlaps another, nothing scrolls
sideways, no panel is stretched past its content. A tournament's minimum rating typed and
explained in the rating players read. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from accounts.models import User
from games.models import Match
from social.models import Challenge
from tests.players import make_player, play_to_end, start_match
from tests.web.conftest import PASSWORD, TIMEOUT_MS, log_in, shot
from tests.web.test_newcomer_browser import assert_accessible
from tournaments.models import Tournament

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

POLL_MS = 4_100
FITS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
# Every pair of cards (list items) in the lobby's lists whose boxes overlap.
OVERLAPS = """() => {
    const boxes = [...document.querySelectorAll('.lobby-lists .match-item')]
        .map((node) => node.getBoundingClientRect());
    const hits = [];
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
        const across = a.left < b.right - 0.5 && b.left < a.right - 0.5;
        if (across && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
            hits.push([a.toJSON(), b.toJSON()]);
    }));
    return hits;
}"""
# The lists' panels: their boxes, to see that none leaves a tall gap beside or below another.
LISTS = """() => [...document.querySelectorAll('.lobby-lists > .card-panel')].map((node) => {
    const r = node.getBoundingClientRect();
    const inner = [...node.children].reduce((end, child) =>
        Math.max(end, child.getBoundingClientRect().bottom), r.top);
    return { id: node.getAttribute('aria-labelledby'), left: r.left, right: r.right,
        top: r.top + scrollY, bottom: r.bottom + scrollY, content: inner + scrollY };
})"""


@pytest.fixture
def context_in(browser: Browser, live_server: Any) -> Iterator[Callable[..., Page]]:
    """``context_in(locale, width)``: a page in a fresh context whose browser speaks ``locale``."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def make(locale: str, width: int, height: int = 900) -> Page:
        context = browser.new_context(
            base_url=live_server.url, locale=locale, viewport={"width": width, "height": height}
        )
        context.set_default_timeout(TIMEOUT_MS)
        # The test server has no event stream: the lobby's poll brings the other player's
        # doings, and this clock runs it at once (``poll``) rather than in 4 s.
        context.clock.install()
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def poll(*pages: Page) -> None:
    """Let the lobby's 4 s poll run in ``pages`` now."""
    for page in pages:
        page.clock.run_for(POLL_MS)


def _log_in(page: Page, username: str) -> None:
    page.goto("/login")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("form button[type=submit].primary").click()
    page.wait_for_url("**/")
    page.locator("#challenges-in-empty, #challenges-in li").first.wait_for()


def _challenge(page: Page, to: str) -> None:
    page.locator("#game").select_option("gops")
    page.locator("#opt-num_cards").fill("3")
    page.locator("#challenge-to").fill(to)
    page.locator("#challenge-button").click()
    expect(page.locator("#challenges-out li", has_text=to)).to_have_count(1)


def test_a_challenge_sent_seen_declined_accepted_and_canceled(
    context_in: Callable[..., Page], user: Callable[[str], User]
) -> None:
    user("alice")
    bob = user("bob")
    User.objects.filter(pk=bob.pk).update(language="de")
    alice_page = context_in("en-US", 1280)
    _log_in(alice_page, "alice")
    bob_page = context_in("de-DE", 390, 844)
    _log_in(bob_page, "bob")

    # sent: alice sees it under hers; bob's lobby shows it (the account stream, or the poll)
    _challenge(alice_page, "bob")
    expect(alice_page.locator("#challenges-out li")).to_contain_text("GOPS, 2 players, untimed")
    incoming = bob_page.locator("#challenges-in li", has_text="alice")
    poll(bob_page)
    expect(incoming).to_have_count(1)
    expect(incoming).to_contain_text("von alice")
    expect(incoming).to_contain_text("Karten auf jeder Hand: 3")
    assert bob_page.evaluate(FITS), "bob's lobby scrolls sideways at 390 px"
    shot(alice_page, "challenge-sent-1280-en")
    shot(bob_page, "challenge-incoming-390-de")
    assert_accessible(bob_page, "the German lobby with a challenge to answer")

    # declined with a reason: alice reads it in her words
    incoming.locator("select.challenge-reason").select_option("too_slow")
    incoming.get_by_role("button", name="Herausforderung von alice ablehnen").click()
    expect(incoming).to_have_count(0)
    poll(alice_page)
    answer = alice_page.locator("#challenge-answers li")
    expect(answer).to_have_text("bob declined your GOPS challenge: Too slow for me")
    expect(alice_page.locator("#challenges-out li")).to_have_count(0)
    declined = Challenge.objects.get(status="declined")
    assert declined.decline_reason == "too_slow"

    # accepted: the match starts, bob is taken to it, alice has a link to it
    _challenge(alice_page, "bob")
    poll(bob_page)
    incoming.get_by_role("button", name="Herausforderung von alice annehmen").click()
    bob_page.wait_for_url(re.compile(r"/matches/[0-9a-f-]{36}$"))
    match_id = bob_page.url.rsplit("/", 1)[1]
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.ACTIVE
    assert [s.user.username for s in match.seats.order_by("index")] == ["alice", "bob"]
    poll(alice_page)
    accepted = alice_page.locator("#challenge-answers li", has_text="accepted")
    expect(accepted).to_have_text("bob accepted your GOPS challenge. Open the match")
    expect(accepted.get_by_role("link")).to_have_attribute("href", f"/matches/{match_id}")
    expect(alice_page.locator(f'#my-matches li[data-match-id="{match_id}"]')).to_have_count(1)

    # canceled: gone from both lobbies
    bob_page.goto("/")
    _challenge(alice_page, "bob")
    poll(bob_page)
    expect(incoming).to_have_count(1)
    alice_page.get_by_role("button", name="Cancel your challenge to bob").click()
    expect(alice_page.locator("#challenges-out li")).to_have_count(0)
    poll(bob_page)
    expect(incoming).to_have_count(0)
    expect(bob_page.locator("#challenges-in-empty")).to_be_visible()
    assert Challenge.objects.filter(status="canceled").count() == 1


def test_finished_match_cards_balance_without_overlap_at_phone_and_desktop_widths(
    new_page: Callable[..., Page],
) -> None:
    carol = make_player("carol")
    carol.user.set_password(PASSWORD)
    carol.user.save(update_fields=["password"])
    others = [make_player(f"rival{i}") for i in range(3)]
    for rival in others * 2:  # six finished matches, two running
        played = start_match("gops", [carol, rival], options={"num_cards": 3})
        play_to_end(played, [carol, rival])
    for rival in others[:2]:
        start_match("gops", [carol, rival], options={"num_cards": 5})
    page = new_page(width=1280, height=900)
    log_in(page, "carol")
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        expect(page.locator("#my-matches li")).to_have_count(8)
        shot(page, f"lobby-finished-cards-{width}")
        assert page.evaluate(FITS), f"the lobby scrolls sideways at {width} px"
        assert page.evaluate(OVERLAPS) == [], f"lobby cards overlap at {width} px"
        panels = page.evaluate(LISTS)
        for panel in panels:
            # no panel is stretched far past its own content (a tall gap inside it)
            assert panel["bottom"] - panel["content"] <= 120, (
                f"{panel['id']} has {panel['bottom'] - panel['content']:.0f} px of empty space"
                f" at {width} px: {panels}"
            )


def test_a_tournament_rating_condition_is_typed_and_explained_in_shown_ratings(
    new_page: Callable[..., Page], user: Callable[[str], User]
) -> None:
    user("olga")
    page = new_page(width=1280)
    log_in(page, "olga")
    page.goto("/tournaments")
    page.locator("#game option[value='gops']").wait_for(state="attached")
    page.get_by_label("Name", exact=True).fill("Club cup")
    page.locator("#t-format").select_option("round_robin")
    page.locator("#t-min-rating").fill("1600")
    expect(page.locator("#t-rating-help")).to_contain_text("a new player has 1500")
    page.get_by_role("button", name="Create tournament").click()
    page.wait_for_url("**/tournaments/*-*")
    assert Tournament.objects.get(name="Club cup").min_rating == 1600
    expect(page.locator("#tournament-settings")).to_contain_text("Minimum rating: 1600")
    # the organiser is a newcomer (1500): told so in the numbers of the condition
    expect(page.locator("#why-not")).to_have_text(
        "Your rating, 1500, is below the minimum of 1600."
    )
