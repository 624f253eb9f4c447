"""In headless Chromium, in English and in German (the profile's language, the browser staying
en-US), at 390 and 1280 px: the pages a new player reads. The tokens page has one scope per row
with its checkbox bound to it and a token table that stacks on a phone; a played card is said to
screen readers, not put in a box over the table; the profile and the leaderboard show ratings as
1500 + 50 x ordinal with "?" for provisional ones, the games by name and the streak in words;
every date is one format per language; a tournament without players and an empty tournament
list say so once; Xato, Memory and Old Men of the Forest show their settings in words. Nothing
scrolls sideways, nothing fixed covers the page, axe-core finds nothing serious on any of them.
Screenshots: artifacts/screenshots/<page>-<lang>-<width>.png."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Rating
from games.services.matches import SeatSpec, match_create
from tests.players import Player, make_player, start_match
from tests.web.conftest import shot
from tests.web.test_newcomer_browser import assert_accessible
from tests.web.test_profiles_browser import OVERFLOW, _log_in
from tournaments.services.create import tournament_create

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WIDTHS = {390: 844, 1280: 900}
# "Mon, Dec 7, 2026, 02:17 PM" and "Mo., 7. Dez. 2026, 14:17": the one format of each language.
DATE = {
    "en": re.compile(r"^[A-Z][a-z]{2}, [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}\s[AP]M$"),
    "de": re.compile(r"^[A-Z][a-z]\., \d{1,2}\. [A-Z][a-zä]{2,3}\.? \d{4}, \d{2}:\d{2}$"),
}
# Visible fixed boxes (a toast) that lie over any of the given elements.
COVERED = """(selectors) => {
    const fixed = [...document.querySelectorAll('body *')].filter((n) => {
        const style = getComputedStyle(n);
        const shown = style.visibility !== 'hidden' && n.getClientRects().length;
        return style.position === 'fixed' && shown;
    }).map((n) => [n.id || n.className, n.getBoundingClientRect()]);
    const hits = [];
    for (const selector of selectors) for (const node of document.querySelectorAll(selector)) {
        const r = node.getBoundingClientRect();
        for (const [name, f] of fixed) {
            const over = f.left < r.right && r.left < f.right
                && f.top < r.bottom && r.top < f.bottom;
            if (over) hits.push(`${name} over ${selector}`);
        }
    }
    return hits;
}"""
# Elements wider than their box (cut off), among the given ones.
CUT = """(selector) => [...document.querySelectorAll(selector)]
    .filter((n) => n.getClientRects().length && n.scrollWidth > n.clientWidth + 1)
    .map((n) => n.id || n.className)"""

WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "streak": "Won the last 2 matches.",
        "day": "Chosen: Thu, Dec 24, 2026",
        "no_tournaments": "No tournaments yet.",
        "nobody": "Nobody has joined yet.",
        # Each generic game's view field that repeats an option: its title and value in words.
        "settings": {
            "xato": ("history_mode", "Earlier turns", "Remember them yourself"),
            "memory": ("history_mode", "Earlier flips", "Remember them yourself"),
            "old-men-of-the-forest": (
                "deforestation_penalty", "Deforestation cards at the end", "Costs 3 points each",
            ),
        },
    },
    "de": {
        "streak": "Die letzten 2 Partien gewonnen.",
        "day": "Gewählt: Do., 24. Dez. 2026",
        "no_tournaments": "Noch keine Turniere in diesem Spiel.",
        "nobody": "Noch niemand ist beigetreten.",
        "settings": {
            "xato": ("history_mode", "Frühere Runden", "Selbst merken"),
            "memory": ("history_mode", "Frühere Aufdeckungen", "Selbst merken"),
            "old-men-of-the-forest": (
                "deforestation_penalty", "Abholzungskarten am Ende", "Kostet je 3 Punkte",
            ),
        },
    },
}  # fmt: skip


def _ratings(ann: Player, ben: Player) -> None:
    # ann: settled in GOPS (ordinal 14: 2200), new in Memory (ordinal 4, sigma 7: "1700?").
    for user, game, mu, sigma in (
        (ann.user, "gops", 20.0, 2.0),
        (ann.user, "memory", 25.0, 7.0),
        (ben.user, "gops", 18.0, 6.5),
    ):
        # The resignations made the rows (played, won); the ratings are set here.
        Rating.objects.update_or_create(
            user=user, game=game,
            defaults={"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma, "rated_matches": 4,
                      "opponents": 2},
        )  # fmt: skip


def _nothing(page: Page, width: int) -> None:
    """No check of a page's own at this width beyond the common ones."""


def _tokens_fit(page: Page, width: int) -> None:
    for button in page.locator("#token-rows button").all():
        revoke = button.bounding_box()
        assert revoke is not None and revoke["x"] + revoke["width"] <= width
    assert not page.evaluate(CUT, "#tokens, .scope-row, .scope-row code")
    for row in page.locator(".scope-row").all():  # the box sits on its own scope's line
        check, name = row.locator("input").bounding_box(), row.locator("code").bounding_box()
        assert check and name and abs(check["y"] - name["y"]) < name["height"]


def _table_uncovered(page: Page, width: int) -> None:
    assert not page.evaluate(COVERED, ["#history", "#table", "#hand", "#status-line"])


def _each_width(
    page: Page, name: str, lang: str, check: Callable[[Page, int], None] = _nothing
) -> None:
    for width, height in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        check(page, width)
        assert page.evaluate(OVERFLOW) <= 0, f"{name} ({lang}) scrolls sideways at {width} px"
        assert not page.evaluate(COVERED, ["main h1", "main h2", "main table", "main form"])
        shot(page, f"{name}-{lang}-{width}")


def test_pages_read_well_in_english_and_german(
    new_page: Callable[..., Page], settings: Any
) -> None:
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 1
    settings.FACEDOWN_TASK_RUNNER = "off"  # the bots wait: the pages, not the play
    ann, ben = make_player("ann"), make_player("ben")
    User.objects.filter(pk=ben.user.pk).update(language="de")
    for _ in range(2):  # ann wins two: her streak
        match_id = start_match("gops", [ann, ben], options={"num_cards": 3})
        assert ben.post(f"/matches/{match_id}/resign").status_code == 200
    _ratings(ann, ben)
    by_bots = {
        game: str(match_create(creator=ann.user, game=game, seats=[SeatSpec("me"), *bots]).id)
        for game, bots in (
            ("gops", [SeatSpec("bot", bot="greedy")]),
            ("xato", [SeatSpec("bot", bot="greedy")] * 2),
            ("memory", [SeatSpec("bot", bot="greedy")]),
            ("old-men-of-the-forest", [SeatSpec("bot", bot="greedy")] * 2),
        )
    }
    cup = None
    fails = str(
        match_create(
            creator=ann.user, game="gops", seats=[SeatSpec("me"), SeatSpec("bot", bot="greedy")]
        ).id
    )
    for lang, player in (("en", ann), ("de", ben)):
        words = WORDS[lang]
        page = new_page(width=1280, height=900)
        _log_in(page, player)
        made = player.post(
            "/accounts/me/tokens",
            {"name": "my script", "scopes": ["read", "play"], "expires_in": 86400},
        )
        assert made.status_code == 201, made.content

        # Tokens: each scope's checkbox is named by its scope and described by its sentence;
        # the table stacks on a phone with Revoke inside the screen; one date format.
        page.goto("/tokens")
        mine = page.locator("#token-rows tr", has_text="my script")
        expect(mine).to_have_count(1)
        box = page.get_by_role("checkbox", name="challenge", exact=True)
        expect(box).to_have_accessible_description(re.compile(r"\w{4,}"))
        expires = mine.locator("td").nth(2).inner_text()
        assert DATE[lang].match(expires.strip()), expires

        _each_width(page, "tokens", lang, _tokens_fit)
        if lang == "en":
            assert_accessible(page, "tokens")

        # Profile: the shown rating, "?" and its note; the game's name; the streak in words.
        page.goto("/players/ann")
        expect(page.locator("#rating-rows tr")).to_have_count(2)
        cells = [
            row.locator("td").all_inner_texts() for row in page.locator("#rating-rows tr").all()
        ]
        assert [row[:2] for row in cells] == [["GOPS", "2200"], ["Memory", "1700?"]]
        expect(page.locator("#ratings-note")).to_be_visible()
        expect(page.locator("#streak")).to_have_text(words["streak"])
        expect(page.locator("#recent li").first).to_contain_text("GOPS: ann")
        assert "openskill" not in page.locator("#ratings").inner_text()
        recent = page.locator("#recent li").first.inner_text()  # "GOPS: ann vs ben — won, <date>"
        assert DATE[lang].match(recent.split(" — ", 1)[1].split(", ", 1)[1]), recent
        _each_width(page, "profile", lang)
        if lang == "en":
            assert_accessible(page, "profile")

        # A date field shows the browser's format (en-US here): the choice is repeated under it
        # in the page's language.
        page.goto(f"/players/{player.name}")
        page.locator("#vacation-until").fill("2026-12-24")
        expect(page.locator("#vacation-until-said")).to_have_text(words["day"])

        page.goto("/leaderboard?game=gops")
        expect(page.locator("#board-rows tr")).to_have_count(2)
        ratings = page.locator("#board-rows td:nth-child(3)").all_inner_texts()
        assert ratings == ["2200", "1425?"]  # ben: ordinal -1.5, sigma 6.5
        _each_width(page, "leaderboard", lang)
        if lang == "en":
            assert_accessible(page, "leaderboard")

        # Tournaments: an empty list says so once (English: none at all; German: none of the
        # chosen game), with no empty panels; a cup without players shows no table or links.
        page.goto("/tournaments")
        if lang == "de":
            expect(page.locator("#list-registering")).to_contain_text("Empty cup")
            page.locator("#filter-game").select_option("xato")
        expect(page.locator("#tournaments-status")).to_have_text(words["no_tournaments"])
        expect(page.locator(".tournaments-page .lobby-lists section[hidden]")).to_have_count(3)
        _each_width(page, "tournaments-empty", lang)
        if lang == "en":
            assert_accessible(page, "tournaments")
            now = timezone.now()
            cup = tournament_create(
                organiser=ann.user, now=now, name="Empty cup", game="gops",
                options={"num_cards": 3}, format="swiss", rounds=3, round_limit_seconds=86400,
                starts_at=now + timedelta(days=2),
            )  # fmt: skip
        assert cup is not None
        page.goto(f"/tournaments/{cup.pk}")
        expect(page.locator("#entrants")).to_have_text(words["nobody"])
        for hidden in ("#standings-wrap", "#exports", "#crosstable-panel", "#rounds-panel"):
            expect(page.locator(hidden)).to_be_hidden()
        _each_width(page, "tournament-empty", lang)
        if lang == "en":
            assert_accessible(page, "tournament")

        # Settings in words: no raw option key or value on the generic games' match pages.
        for game, (key, title, value) in words["settings"].items():
            page.goto(f"/matches/{by_bots[game]}")
            field = page.locator(f"[data-field='{key}']")
            expect(field.locator("h3")).to_have_text(title)
            expect(field).to_contain_text(value)
            expect(page.locator("#generic-view")).not_to_contain_text(
                re.compile(r"\b[a-z]+_[a-z_]+\b")
            )
        _each_width(page, "match-settings", lang)
        if lang == "en":
            assert_accessible(page, "match of a generic game")

        # A played card: said to screen readers; nothing shows over the table.
        if lang == "en":
            page.goto(f"/matches/{by_bots['gops']}")
            page.locator("#hand button.playable").first.click()
            expect(page.locator("#quiet-status")).to_contain_text("Played card")
            expect(page.locator("#toast")).to_be_hidden()
            expect(page.locator("#status-line")).not_to_have_class(re.compile("your-move"))

            _each_width(page, "match-played", lang, _table_uncovered)
            # A failed move says why under the choices, in the page's flow: the network fails.
            page.route("**/api/v1/matches/*/moves", lambda route: route.abort())
            page.goto(f"/matches/{fails}")
            page.locator("#hand button.playable:not([disabled])").first.click()
            expect(page.locator("#move-error")).to_contain_text("Network error")
            expect(page.locator("#toast")).to_be_hidden()
            page.unroute("**/api/v1/matches/*/moves")
            _each_width(page, "match-failed", lang, _table_uncovered)
            assert_accessible(page, "match")
        page.context.close()
