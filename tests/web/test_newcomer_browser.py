"""In headless Chromium, the client as a new player meets it: on the player's turn the match page
shows the pot, the sealed row and the choices to click without scrolling (1280 x 900 and
390 x 844, every game); the lobby's columns balance; option labels and choices speak plain words
and never cut their text on a phone; an axe-core audit finds nothing serious on any page; a card
plays from the keyboard; "your move" and the reveal are announced in a live region.
Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from accounts.models import User
from games.services.matches import SeatSpec, match_create
from tests.players import make_player, play_to_end, start_match
from tests.web.conftest import log_in, shot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# One match per game, the human at seat 1 against bots, with the default options (the largest
# hands and boards a newcomer meets).
MATCHES: dict[str, int] = {
    "gops": 2,
    "hols-der-geier": 3,
    "old-men-of-the-forest": 3,
    "xato": 3,
    "memory": 2,
}
SEALED_BID = ("gops", "hols-der-geier")
CHOICES = (
    "#hand button.playable:not([disabled]), #moves button:not([disabled]), "
    ".grid-board button.playable:not([disabled])"
)
# The boxes of what must be in view, relative to the viewport (the page is not scrolled).
BOXES = """(selectors) => selectors.map((selector) => {
    const nodes = [...document.querySelectorAll(selector)].filter((n) => n.getClientRects().length);
    if (!nodes.length) return { selector, missing: true };
    const rects = nodes.map((n) => n.getBoundingClientRect());
    const edge = (side, pick) => pick(...rects.map((r) => r[side]));
    return { selector, top: edge('top', Math.min), bottom: edge('bottom', Math.max),
        left: edge('left', Math.min), right: edge('right', Math.max), scrollY: window.scrollY,
        width: window.innerWidth, height: window.innerHeight };
})"""
_axe = Axe()


def assert_accessible(page: Page, where: str) -> None:
    """No serious or critical axe-core violation (colour contrast included)."""
    results = _axe.run(page)
    bad = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, f"{where}: {results.generate_report()}"


def assert_in_view(page: Page, selectors: list[str], where: str) -> None:
    for box in page.evaluate(BOXES, selectors):
        assert not box.get("missing"), f"{where}: nothing shows {box['selector']}"
        inside = (
            box["scrollY"] == 0
            and box["top"] >= 0
            and box["left"] >= 0
            and box["bottom"] <= box["height"]
            and box["right"] <= box["width"]
        )
        assert inside, f"{where}: {box['selector']} is not in view without scrolling: {box}"


def _my_turn_match(game: str, players: int, me: User) -> str:
    bots = [SeatSpec("bot", bot="greedy") for _ in range(players - 1)]
    return str(match_create(creator=me, game=game, seats=[SeatSpec("me"), *bots]).id)


def _check_both_sizes(page: Page, name: str, needed: list[str]) -> None:
    for size, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, f"decision-first-{name}-{label}")
        assert_in_view(page, needed, f"{name} at {size['width']} x {size['height']}")


def test_the_match_page_puts_the_decision_first_for_every_game(
    new_page: NewPage, embedded_worker: None, user: Callable[[str], User]
) -> None:
    newcomer = user("newcomer")
    matches = {game: _my_turn_match(game, n, newcomer) for game, n in MATCHES.items()}
    page = new_page(**DESKTOP)
    log_in(page, "newcomer")
    for game, match_id in matches.items():
        page.set_viewport_size(DESKTOP)
        page.goto(f"/matches/{match_id}")
        page.locator(CHOICES).first.wait_for(timeout=15_000)  # the bots before us have moved
        needed = [CHOICES, "#status-line"]
        if game in SEALED_BID:
            needed += ["#prize .pot", "#table .slots"]
        _check_both_sizes(page, game, needed)
        if game in SEALED_BID:  # and on the next turn, with the revealed row under the sealed one
            page.locator(CHOICES).first.click()
            page.locator("#table .revealed-row").wait_for()
            page.locator(CHOICES).first.wait_for()
            _check_both_sizes(page, f"{game}-step-2", [*needed, "#table .revealed-row"])
        assert_accessible(page, f"the {game} match page")
        page.emulate_media(color_scheme="dark")
        assert_accessible(page, f"the {game} match page in dark mode")
        page.emulate_media(color_scheme="light")


def test_the_lobby_columns_balance_at_desktop_width(
    new_page: NewPage, user: Callable[[str], User]
) -> None:
    user("newcomer")
    page = new_page(**DESKTOP)
    log_in(page, "newcomer")
    shot(page, "lobby-desktop")
    boxes = page.evaluate(PANELS)
    # Beside every panel, each other column reaches within 300 px of its bottom: no tall panel
    # stands beside an empty column.
    for panel in boxes:
        columns: dict[int, float] = {}
        for other in boxes:
            beside = other["left"] >= panel["right"] or other["right"] <= panel["left"]
            level = other["top"] < panel["bottom"] and other["bottom"] > panel["top"]
            if beside and level:
                column = round(other["left"] / 20)
                columns[column] = max(columns.get(column, 0.0), other["bottom"])
        for reach in columns.values():
            assert panel["bottom"] - reach <= 300, (
                f"{panel['id']} ends {panel['bottom'] - reach:.0f} px below its neighbour: {boxes}"
            )
    assert_accessible(page, "the lobby")
    page.emulate_media(color_scheme="dark")
    assert_accessible(page, "the lobby in dark mode")


def test_the_lobby_speaks_plain_words_and_cuts_no_select_on_a_phone(
    new_page: NewPage, user: Callable[[str], User]
) -> None:
    user("newcomer")
    seek = {"game": "gops", "players": 2, "options": {"num_cards": 3, "tie_rule": "discard"}}
    assert make_player("seeker").post("/seeks", seek).status_code == 201
    page = new_page(**PHONE)
    log_in(page, "newcomer")
    waiting = page.locator("#seeks li", has_text="seeker")
    expect(waiting).to_contain_text("Cards in each hand: 3")
    expect(waiting).to_contain_text("When the highest bids tie: Pot is thrown away")
    assert "_" not in waiting.inner_text()
    for game in MATCHES:
        page.locator("#game").select_option(game)
        page.locator("#options .field").first.wait_for()
        labels = page.eval_on_selector_all(
            "#create-form label, #create-form legend", "nodes => nodes.map((n) => n.innerText)"
        )
        raw = [text for text in labels if "_" in text or text.strip().lower() in RAW_WORDS]
        assert not raw, f"{game}: raw option names as labels: {raw}"
        options = page.eval_on_selector_all(
            "#create-form select option", "nodes => nodes.map((n) => n.textContent)"
        )
        assert not [t for t in options if "_" in t], f"{game}: raw values offered: {options}"
        cut = page.evaluate(CUT_SELECTS)
        assert not cut, f"{game}: selects cut their text at 390 px: {cut}"
        shot(page, f"lobby-options-{game}-phone")
    assert_accessible(page, "the lobby on a phone")


# The lobby's panels, and within the new-match form its blocks (which flow in columns).
PANELS = """() => [...document.querySelectorAll(
        '.lobby section.card-panel:not(:has(.form-columns)), .form-columns > *')]
    .filter((node) => node.getClientRects().length)
    .map((node) => {
        const r = node.getBoundingClientRect();
        return { id: node.id || node.getAttribute('aria-labelledby') || node.className,
            left: r.left, right: r.right, top: r.top + scrollY, bottom: r.bottom + scrollY };
    })"""
RAW_WORDS = {"num cards", "tie rule", "final tie", "prize order", "max calls", "allow five"}
# Every select as wide as its longest option needs (a select sizes itself to it unless the page
# squeezes it, and then it cuts the text).
CUT_SELECTS = """() => [...document.querySelectorAll('#create-form select')]
    .filter((select) => select.getClientRects().length)
    .map((select) => {
        const shown = select.getBoundingClientRect().width;
        const before = select.getAttribute('style');
        select.style.width = 'max-content';
        select.style.maxWidth = 'none';
        select.style.minWidth = '0';
        const needed = select.getBoundingClientRect().width;
        select.setAttribute('style', before || '');
        const longest = [...select.options].map((o) => o.textContent)
            .sort((a, b) => b.length - a.length)[0];
        return { select: select.id || select.className, shown, needed, longest };
    })
    .filter((s) => s.needed > s.shown + 0.5)"""


def test_a_card_plays_from_the_keyboard_and_the_turn_and_reveal_are_announced(
    new_page: NewPage, embedded_worker: None, user: Callable[[str], User]
) -> None:
    keyboard = user("keyboard")
    match = match_create(
        creator=keyboard,
        game="gops",
        seats=[SeatSpec("me"), SeatSpec("bot", bot="random")],
        options={"num_cards": 5},
    )
    page = new_page(**DESKTOP)
    log_in(page, "keyboard")
    page.goto(f"/matches/{match.id}")
    announcer = page.locator("#announce")
    expect(announcer).to_have_attribute("aria-live", "polite")
    expect(announcer).to_contain_text("Your move")
    first_card = page.locator("#hand button.playable:not([disabled])").first
    first_card.wait_for()
    for _ in range(60):  # Tab from the top of the page until a card has the focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#hand button.playable')"):
            break
    else:
        raise AssertionError("no card of the hand takes the focus with Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # the third card: one in the middle of the hand
    focused = page.evaluate("document.activeElement.dataset.card")
    hand = page.eval_on_selector_all("#hand button", "cards => cards.map((c) => c.dataset.card)")
    place = hand.index(focused)
    rest = [card for card in hand if card != focused]
    page.keyboard.press("Enter")
    expect(announcer).to_contain_text(f"Step 1 revealed: you played {focused}")
    page.locator(f"#hand button[data-card='{focused}']").wait_for(state="detached")
    # The focus stays in the hand, on a card of the next step: Space plays it.
    expect(announcer).to_contain_text("Your move")
    page.wait_for_function(
        "document.activeElement.matches('#hand button.playable:not([disabled])')"
    )
    card = page.evaluate("document.activeElement.dataset.card")
    assert card == rest[min(place, len(rest) - 1)]  # the card that took the played one's place
    page.keyboard.press(" ")
    expect(announcer).to_contain_text(f"Step 2 revealed: you played {card}")


def test_profile_leaderboard_and_login_pages_pass_the_audit(
    new_page: NewPage, user: Callable[[str], User], settings: Any
) -> None:
    # One match puts its players on the leaderboard (docs/api.md, "Leaderboard").
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 1
    user("auditor")
    one, two = make_player("ann"), make_player("bob")
    play_to_end(start_match("gops", [one, two], options={"num_cards": 3}), [one, two])
    page = new_page(**DESKTOP)
    page.goto("/login")
    assert_accessible(page, "the login page")
    page.goto("/signup")
    assert_accessible(page, "the signup page")
    log_in(page, "auditor")
    page.goto("/players/ann")
    page.locator("#profile-status:not(:has-text('Loading'))").wait_for()
    page.locator("#recent li").first.wait_for()
    assert_accessible(page, "a profile page")
    page.set_viewport_size(PHONE)
    assert_accessible(page, "a profile page on a phone")
    page.set_viewport_size(DESKTOP)
    page.goto("/leaderboard")
    page.locator("table tbody tr").first.wait_for()
    assert_accessible(page, "the leaderboard")
    page.set_viewport_size(PHONE)
    assert_accessible(page, "the leaderboard on a phone")
