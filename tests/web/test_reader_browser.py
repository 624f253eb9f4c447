"""The screen-reader mode, keyboard only, in headless Chromium: a match of each of the five
games against fast bots is played to the end with the mode on (moves typed in the move field or
chosen from the list of legal moves, never clicked), and the live log is checked for "your
move", the reveals and the result, and for the answers of the query keys. One play-through is
in German and commit-reveal; axe-core finds nothing serious or critical on the mode's page;
the top bar switches the mode and stores it on the account. Screenshots:
artifacts/screenshots/reader-<game>.png."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Move
from games.services.matches import SeatSpec, match_create
from tests.web.conftest import PASSWORD, SCREENSHOTS
from tests.web.test_newcomer_browser import assert_accessible

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
# What the reader's panel says of the match: the turn it awaits ("" when none) and its status.
TURN = """(seen) => { const p = document.getElementById('reader');
    return p.dataset.status === 'finished' || (p.dataset.turn && p.dataset.turn !== seen); }"""
LOG = "#reader-log p"
FISCHER = {"kind": "fischer", "initial_seconds": 600, "increment_seconds": 60, "max_seconds": 900}


def _reader(name: str, language: str = "en", *, on: bool = True) -> User:
    return User.objects.create_user(
        username=name, password=PASSWORD, screen_reader=on, language=language
    )


def _sign_in(page: Page, url: str, user: User) -> None:
    """A session cookie, without walking the login form (its own tests do that)."""
    client = Client()
    client.force_login(user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": url}])


def _heard(page: Page, heard: list[str]) -> None:
    """Add the log's new lines (the log keeps its last lines only)."""
    for line in page.locator(LOG).all_inner_texts():
        if line not in heard:
            heard.append(line)


def _ask(page: Page, key: str) -> str:
    """Press a query key outside any field; the answer is the log's newest line."""
    before = page.locator(LOG).count()
    page.keyboard.press(key)
    page.wait_for_function(
        "(n) => document.querySelectorAll('#reader-log p').length !== n || n >= 30", arg=before
    )
    return page.locator(LOG).last.inner_text()


def _play_by_keyboard(page: Page, *, pick: bool, limit: int = 80) -> list[str]:
    """Play every move the match asks of the player until it is over: type the first legal
    move's value in the move field and press Enter, or (pick) Tab to the list of legal moves
    and play its first entry with the keyboard. Returns every line the log said."""
    heard: list[str] = []
    seen = ""
    for _ in range(limit):
        page.wait_for_function(TURN, arg=seen)
        _heard(page, heard)
        panel = page.locator("#reader")
        if panel.get_attribute("data-status") == "finished":
            return heard
        seen = panel.get_attribute("data-turn") or ""
        if seen.endswith(":reveal"):  # commit-reveal: the browser reveals the committed card
            continue
        page.locator("#reader-move").focus()
        if pick:
            page.keyboard.press("Tab")  # the "Play" button of the field
            page.keyboard.press("Tab")  # the list of legal moves, its first entry chosen
            page.keyboard.press("Tab")  # "Play the chosen move"
            page.keyboard.press("Enter")
        else:
            options = page.eval_on_selector_all("#reader-moves option", "os => os.map(o => o.text)")
            # A list of plain values is a choose-k move (Xato's two life cards): typed at once.
            typed = options[0].split(" ")[-1] if " " in options[0] else " ".join(options[:2])
            page.keyboard.type(typed)
            page.keyboard.press("Enter")
    raise AssertionError(f"the match did not end within {limit} moves: {heard[-5:]}")


def _match(me: User, game: str, bots: int, options: dict[str, Any], **extra: Any) -> str:
    seats = [SeatSpec("me"), *(SeatSpec("bot", bot="greedy") for _ in range(bots))]
    return str(match_create(creator=me, game=game, seats=seats, options=options, **extra).id)


def _queries(page: Page, answers: dict[str, str]) -> None:
    """Each key's answer starts as expected (the focus is on the page, not in a field)."""
    page.locator("#reader").focus()
    for key, start in answers.items():
        said = _ask(page, key)
        assert said.startswith(start), f"{key}: {said!r} does not start with {start!r}"


# game, bots, options, whether moves are picked from the list, the page's language, the expected
# starts of the query answers, and of "your move", a reveal and the result in that language
GAMES: list[tuple[str, int, dict[str, Any], bool, str, dict[str, str]]] = [
    (
        "gops",
        1,
        {"num_cards": 3},
        False,
        "de",
        {
            "?": "Tasten:",
            "p": "Pott:",
            "h": "Deine Hand:",
            "s": "Punkte:",
            "c": "Keine Uhr",
            "t": "Genommen:",
            "your move": "Dein Zug:",
            "reveal": "aufgedeckt:",
            "over": "Partie vorbei:",
        },
    ),
    # The two-player deal removes three random cards: the hand starts with any of them.
    ("hols-der-geier", 1, {}, True, "en", {"p": "Pot:", "h": "Your hand: ", "w": "ear-hols-d"}),
    (
        "memory",
        1,
        {"pairs": 6},
        True,
        "en",
        {"p": "Board: face down", "h": "Memory has no hand", "t": "Taken:"},
    ),
    (
        "xato",
        3,
        {"life_cards": 2, "max_calls": 1, "strict_memory": False},
        False,
        "en",
        {"p": "Face-up pool:", "h": "Your hand:", "t": "Cards held:"},
    ),
    ("old-men-of-the-forest", 2, {}, True, "en", {"p": "Trick 1 of 10", "h": "Your hand:"}),
]
ENGLISH = {
    "?": "Keys:",
    "your move": "Your move:",
    "reveal": "revealed:|flipped|played|takes|calls",
    "over": "Match over:",
}


@pytest.mark.parametrize(
    ("game", "bots", "options", "pick", "language", "said"), GAMES, ids=[g[0] for g in GAMES]
)
def test_a_whole_match_by_keyboard_with_the_reader(
    new_page: NewPage,
    live_server: Any,
    embedded_worker: None,
    game: str,
    bots: int,
    options: dict[str, Any],
    pick: bool,
    language: str,
    said: dict[str, str],
) -> None:
    expected = {**ENGLISH, **said} if language == "en" else said
    me = _reader(f"ear-{game[:6]}", language)
    # The German match is commit-reveal: a typed move is committed, then revealed by the page.
    protocol = "commit-reveal" if language == "de" else "sealed"
    match_id = _match(me, game, bots, options, protocol=protocol)
    page = new_page()
    _sign_in(page, live_server.url, me)
    page.goto(f"/matches/{match_id}")
    page.locator("#reader:not([hidden])").wait_for()
    page.wait_for_function(TURN, arg="")
    queries = {k: v for k, v in expected.items() if len(k) == 1}
    _queries(page, queries)
    if game == "gops":  # the mode's page, mid-match: the log, the field and the list filled
        assert_accessible(page, "the screen-reader mode")
    heard = _play_by_keyboard(page, pick=pick)
    _heard(page, heard)
    assert any(line.startswith(expected["your move"]) for line in heard), heard
    reveal = expected["reveal"].split("|")
    assert any(word in line for line in heard for word in reveal), heard
    assert any(line.startswith(expected["over"]) for line in heard), heard
    page.keyboard.press("Escape")  # out of the move field: the keys answer again
    assert _ask(page, "l") in heard  # the last reveal, said again
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#reader").screenshot(path=str(SCREENSHOTS / f"reader-{game}.png"))


def test_the_top_bar_switches_the_mode_and_the_account_keeps_it(
    new_page: NewPage, live_server: Any, embedded_worker: None
) -> None:
    me = _reader("switcher", on=False)
    match_id = _match(me, "gops", 1, {"num_cards": 3}, time_control=FISCHER)
    page = new_page(width=390, height=844)  # a phone: the switch is in its top bar too
    _sign_in(page, live_server.url, me)
    page.goto(f"/matches/{match_id}")
    expect(page.locator("#match-title")).to_have_text("GOPS")
    expect(page.locator("#reader")).to_be_hidden()
    page.keyboard.press("p")  # nothing answers while the mode is off
    expect(page.locator(LOG)).to_have_count(0)
    toggle = page.locator("#reader-toggle")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#reader")).to_be_focused()
    expect(page.locator("#reader-log")).to_contain_text("Your move:")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    me.refresh_from_db()
    assert me.screen_reader
    # A card not in the hand is refused by the mode itself, and nothing is sent; a letter and
    # Enter in the move field asks its question.
    page.keyboard.press("m")
    expect(page.locator("#reader-move")).to_be_focused()
    page.keyboard.type("99")
    page.keyboard.press("Enter")
    expect(page.locator(LOG).last).to_have_text(
        "99 is not a legal move now. Legal: card 1, card 2, card 3."
    )
    assert not Move.objects.filter(match_id=match_id, seat=0).exists()
    lines = page.locator(LOG).count()
    page.keyboard.type("h")  # typed in the field: no key fires
    assert page.locator(LOG).count() == lines
    page.keyboard.press("Enter")
    expect(page.locator(LOG).last).to_have_text("Your hand: 1, 2, 3.")
    page.keyboard.type("c")
    page.keyboard.press("Enter")
    running = r"Clocks: switcher \(you\): 0:(09|10):\d\d \(running\); bot \(greedy\): "
    expect(page.locator(LOG).last).to_have_text(re.compile(running))
    page.goto(f"/players/{me.username}")
    expect(page.locator("#reader-pref")).to_be_checked()
    page.locator("#reader-pref").focus()
    page.keyboard.press("Space")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    me.refresh_from_db()
    assert not me.screen_reader
