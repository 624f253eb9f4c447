"""The operator's console in headless Chromium at 1280 and 1024 px: on the home, match, user,
report, sanction and tournament pages no two boxes among the title and the action buttons
overlap, and axe-core finds no serious or critical violation; a finished match offers no live
action, only the transcript's download and its verification (which checks out); the match page
shows the table and stays under 2,000 px for a 13-card GOPS. Screenshots at 1280 px go to
artifacts/screenshots/console-*.png."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from accounts.models import User
from moderation.reports import report_file
from tests.players import make_player, play_to_end, start_match
from tests.tournaments.driver import tournament
from tests.web.conftest import PASSWORD, shot
from tests.web.test_newcomer_browser import assert_accessible
from tournaments.services.lifecycle import tournament_start

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: The boxes of the title and of every action button, and the pairs that overlap.
OVERLAPS = """() => {
    const nodes = [...document.querySelectorAll(
        '#content h1, .console-actions a, .object-tools a, .submit-row input')];
    const boxes = nodes.map((n) => [n.textContent.trim(), n.getBoundingClientRect()])
        .filter(([, r]) => r.width > 0 && r.height > 0);
    const hits = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, r] = boxes[i], [b, s] = boxes[j];
        if (r.left < s.right - 0.5 && s.left < r.right - 0.5 &&
            r.top < s.bottom - 0.5 && s.top < r.bottom - 0.5) hits.push(a + ' / ' + b);
    }
    return {count: boxes.length, hits};
}"""


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _world() -> dict[str, str]:
    User.objects.create_superuser("operator", "op@example.com", PASSWORD)
    alice, bob = make_player("alice"), make_player("bob")
    timed = {"per_step_seconds": 7 * 86_400}
    active = start_match("gops", [alice, bob], options={"num_cards": 13}, time_control=timed)
    finished = start_match("gops", [alice, bob], options={"num_cards": 13})
    play_to_end(finished, [alice, bob])
    carol, dan = make_player("carol"), make_player("dan")
    cup = tournament(carol.user, [carol.user, dan.user, alice.user], name="Winter cup")
    tournament_start(tournament_id=cup.pk, by=carol.user)
    alice.post(f"/matches/{active}/chat", {"text": "you cheat"})
    filed = report_file(reporter=bob.user, kind="chat_message", reason="abuse", match=active, seq=1)
    report = f"/admin/moderation/report/{filed.report_id}"
    return {
        "home": "/admin/",
        "match": f"/admin/games/match/{active}/change/",
        "finished": f"/admin/games/match/{finished}/change/",
        "user": f"/admin/accounts/user/{alice.user.pk}/change/",
        "tournament": f"/admin/tournaments/tournament/{cup.pk}/change/",
        "report": f"{report}/change/",
        "sanction": f"{report}/operate/sanction/",
    }


#: Other console pages: checked for overlaps only.
MORE = (
    "/admin/games/match/",
    "/admin/accounts/user/",
    "/admin/tournaments/tournament/",
    "/admin/moderation/moderationlogentry/",
    "/admin/moderation/report/",
)


def _log_in(page: Page) -> None:
    page.goto("/admin/login/")
    page.get_by_label("Username").fill("operator")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/admin/")


def test_console_pages_at_1280_and_1024(new_page: Callable[..., Page]) -> None:
    pages = _world()
    for width in (1280, 1024):
        page = new_page(width=width, height=800)
        _log_in(page)
        for name, url in pages.items():
            page.goto(url)
            boxes = page.evaluate(OVERLAPS)
            assert not boxes["hits"], f"{name} at {width}: {boxes['hits']}"
            if width == 1280:
                assert_accessible(page, f"console {name}")
                shot(page, f"console-{name}")
        operate = pages["match"].replace("/change/", "/operate/extend/")
        for url in (*MORE, operate):
            page.goto(url)
            boxes = page.evaluate(OVERLAPS)
            assert not boxes["hits"], f"{url} at {width}: {boxes['hits']}"
        # a live match: the table and its actions, in groups
        page.goto(pages["match"])
        assert page.locator(".console-table table.view").count() >= 1
        assert page.locator(".console-actions a[href*='/operate/']").count() >= 4
        # a finished 13-card GOPS: the whole table, no live action, and under 2,000 px
        page.goto(pages["finished"])
        assert page.locator(".console-table table.records tbody tr").count() == 13
        assert page.locator("a[href*='/operate/']").count() == 0
        height = page.evaluate("() => document.documentElement.scrollHeight")
        assert height < 2000, f"the finished match's page is {height} px tall at {width}"
        # the tournament's running controls
        page.goto(pages["tournament"])
        assert page.locator(".console-actions a[href*='/control/end/']").count() == 1
    page.goto(pages["finished"])
    page.get_by_role("link", name="Verify the transcript").click()
    page.get_by_text("The transcript checks out.").wait_for()
