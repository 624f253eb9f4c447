"""In headless Chromium, every page of the web client in German, at 390 px and at 1280 px: no
text of the English catalogue shows (apart from a few names kept in their own language), and
no page scrolls sideways with German's longer words. A visitor switches with the top bar; a
signed-in player reads the language of their profile; a correspondence match shows its clocks
and an opponent's vacation, the own profile its vacation panel. Screenshots under the test's tmp
dir."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.i18n.catalogues import DOMAINS, messages
from tests.players import make_player, play_to_end, start_match
from tests.tournaments.driver import play_matches, tournament
from tests.web.conftest import PASSWORD
from tournaments.services.lifecycle import round_check, tournament_start

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
WIDTHS = (390, 1280)
#: Names kept in their own language wherever they show.
OLD_MEN_CARDS = "cardgames/engines/data/old_men_of_the_forest_cards.json"
NAMES = ("Facedown", "GOPS", "Hols der Geier", "Old Men of the Forest", "Xato", "Memory")
#: Game data, not text of the client: the stand-in orang-utan cards' names (docs/languages.md).
CARD_NAMES = tuple(
    sorted(
        {
            card["name"]
            for card in json.loads(
                (Path(__file__).resolve().parents[2] / OLD_MEN_CARDS).read_text(encoding="utf-8")
            )["orangutans"]
        },
        key=len,
        reverse=True,
    )
)
FISCHER = {
    "kind": "fischer",
    "initial_seconds": 3 * 86_400,
    "increment_seconds": 86_400,
    "max_seconds": 7 * 86_400,
}
FITS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
#: What a reader meets on the page: rendered text outside code samples, the labels a screen
#: reader says, placeholders, tooltips and the window title.
SHOWN = """() => {
    const said = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const holder = walker.currentNode.parentElement;
        if (!holder || holder.closest("code, script, style, [hidden]")) continue;
        if (!holder.getClientRects().length) continue;
        said.push(walker.currentNode.textContent);
    }
    for (const node of document.querySelectorAll("[aria-label], [placeholder], [title]")) {
        if (node.closest("[hidden]")) continue;
        for (const name of ["aria-label", "placeholder", "title"]) {
            if (node.hasAttribute(name)) said.push(node.getAttribute(name));
        }
    }
    return said.join("\\n");
}"""


def english_phrases() -> list[re.Pattern[str]]:
    """Each English message of the catalogues, cut at its placeholders and markup, whose words
    its German translation does not share: pieces of three letters or more ("of" alone, left of
    "%(n)s of %(count)s chosen", would find the English name of a placeholder card)."""
    phrases: set[str] = set()
    for domain in DOMAINS:
        for message in messages("de", domain):
            german = " ".join(message.strings)
            for source in (message.msgid, message.plural):
                for part in re.split(r"%\(\w+\)s|<[^>]+>|\n", source):
                    part = part.strip(" .,:;()\u2014\u2013-\u00b7")
                    if re.search(r"[A-Za-z]{3}", part) and part not in german:
                        phrases.add(part)
    return [re.compile(rf"(?<![\w'-]){re.escape(p)}(?![\w'-])") for p in sorted(phrases)]


def english_on(page: Page, patterns: list[re.Pattern[str]]) -> list[str]:
    """The English phrases found, each with the text around it."""
    text = page.evaluate(SHOWN)
    for name in NAMES + CARD_NAMES:
        text = text.replace(name, " ")
    found = (p.search(text) for p in patterns)
    return [text[max(0, m.start() - 30) : m.end() + 30] for m in found if m]


class Checks(list[str]):
    """What is wrong on each page, reported together at the end."""

    def __init__(self, patterns: list[re.Pattern[str]], shots: Path) -> None:
        super().__init__()
        self.patterns, self.shots = patterns, shots

    def __call__(self, page: Page, where: str) -> None:
        check(page, self.patterns, where, self.shots, self)


def check(
    page: Page, patterns: list[re.Pattern[str]], where: str, shots: Path, wrong: list[str]
) -> None:
    if page.locator("html").get_attribute("lang") != "de":
        wrong.append(f"{where} is not in German")
    found = english_on(page, patterns)
    if found:
        wrong.append(f"English on {where}: {found}")
    if not page.evaluate(FITS):
        wrong.append(f"{where} scrolls sideways")
    page.screenshot(path=str(shots / f"{re.sub(r'[^a-z0-9]+', '-', where)}.png"), full_page=True)


def test_every_page_in_german_at_phone_and_desktop_widths(
    new_page: NewPage, user: Callable[[str], Any], tmp_path: Path, settings: Any
) -> None:
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 1
    checked = Checks(english_phrases(), tmp_path)
    jonas = make_player("jonas")
    User.objects.filter(pk=jonas.user.pk).update(language="de")
    lena, mia = make_player("lena"), make_player("mia")
    finished = start_match("gops", [jonas, lena], options={"num_cards": 3})
    play_to_end(finished, [jonas, lena])
    active = {
        "gops": start_match("gops", [jonas, lena], options={"num_cards": 5}),
        "hols-der-geier": start_match("hols-der-geier", [jonas, lena]),
        "memory": start_match("memory", [jonas, lena]),
        "xato": start_match("xato", [jonas, lena, mia]),
        "old-men-of-the-forest": start_match("old-men-of-the-forest", [jonas, lena, mia]),
        # Correspondence clocks counted in days, one of them held by lena's vacation.
        "fischer": start_match(
            "gops", [jonas, lena], options={"num_cards": 3}, time_control=FISCHER
        ),
    }
    away = lena.post("/accounts/me/vacation", {"until": timezone.now() + timedelta(days=2)})
    assert away.status_code == 200, away.content
    series = jonas.post(
        "/series",
        {
            "game": "gops",
            "seats": ["me", {"user": "lena"}],
            "options": {"num_cards": 3},
            "matches": 2,
        },
    )
    assert series.status_code == 201, series.content
    series_id = series.json()["id"]
    jonas.post("/accounts/me/tokens", {"name": "mein Skript", "scopes": ["read"]})
    # A Swiss tournament jonas organises, in its second round: standings, crosstable, a bye.
    now = timezone.now()
    entrants = [lena.user, mia.user, make_player("nora").user]
    cup = tournament(jonas.user, entrants, now=now, name="Herbstpokal", format="swiss", rounds=2)
    tournament_start(tournament_id=cup.pk, now=now)
    play_matches(cup.pk, random.Random(1))
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=1))

    for width in WIDTHS:
        page = new_page(width=width, height=844 if width < 600 else 900)
        # A visitor switches to German on the login page; the cookie keeps it.
        page.goto("/login")
        page.locator("#language-select").select_option("de")
        page.wait_for_function("document.documentElement.lang === 'de'")
        checked(page, f"login {width}")
        page.goto("/signup")
        checked(page, f"signup {width}")
        page.goto("/reset-password?uid=x&token=y")
        checked(page, f"reset password {width}")

        page.goto("/login")
        page.get_by_label("Benutzername").fill("jonas")
        page.get_by_label("Passwort").fill("correct-horse-battery")
        page.get_by_role("button", name="Anmelden").click()
        page.wait_for_url("**/")
        page.locator("#mine-status:not(:has-text('Lädt'))").wait_for()
        page.locator("#opt-num_cards").wait_for()
        page.locator("#tc-kind").select_option("byoyomi")
        checked(page, f"lobby {width}")
        for game in ("hols-der-geier", "memory", "xato", "old-men-of-the-forest"):
            page.locator("#game").select_option(game)
            page.locator("#seats li").first.wait_for()
            checked(page, f"lobby form {game} {width}")

        for game, match_id in active.items():
            page.goto(f"/matches/{match_id}")
            expect(page.locator("#status-line")).not_to_have_text("Lädt…")
            page.locator("#history > *").first.wait_for()
            if game == "fischer":
                page.locator("#seat-rows .seat-clock .clock-note time").wait_for()
            checked(page, f"match {game} {width}")
        page.goto(f"/matches/{finished}")
        expect(page.locator("#verify-panel")).to_be_visible()
        expect(page.locator("#replay-panel")).to_be_visible()
        page.locator("#verify-panel summary").click()
        checked(page, f"finished match {width}")

        for path, ready in (
            # The own profile: its matches and its vacation panel, both loaded.
            ("/players/jonas", "#profile:has(#recent li) #vacation-state:not(:empty)"),
            ("/leaderboard?game=gops", "#board-status:not(:has-text('Lädt'))"),
            (f"/series/{series_id}", "#standing-rows tr"),
            ("/tokens", "#token-rows tr"),
            ("/tournaments", "#list-running li a"),
            (f"/tournaments/{cup.pk}", "#rounds .round + .round"),
        ):
            page.goto(path)
            page.locator(ready).first.wait_for()
            checked(page, f"{path} {width}")

    assert not checked, "\n".join(checked)

    # The login in German was for jonas, whose profile says German already; a player who
    # switches in the top bar keeps German in the profile.
    assert User.objects.get(pk=jonas.user.pk).language == "de"
    user("paul")
    page = new_page(width=1280)
    page.goto("/login")
    page.get_by_label("Username").fill("paul")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")
    page.locator("#language-select").select_option("de")
    expect(page.locator("#mine-title")).to_have_text("Meine Partien")
    assert User.objects.get(username="paul").language == "de"
