"""The operator console shows each seat's clock as a spectator sees it, the time control in
words and the public deadline (never the sweep's own, which can tell which seat moved); the
user admin shows the vacation and ends it."""

from __future__ import annotations

import re
from datetime import timedelta

from django.contrib.admin import helpers
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games.events import timestamp
from games.models import Match
from games.services.clocks_shown import deadline_shown
from tests.players import Player, start_match

CHANGELIST = "/admin/games/match/"
DAY = 86_400
BYOYOMI = {"kind": "byoyomi", "main_seconds": 3 * DAY, "periods": 5, "period_seconds": DAY}
FISCHER = {
    "kind": "fischer",
    "initial_seconds": 3 * DAY,
    "increment_seconds": DAY,
    "max_seconds": 7 * DAY,
    "weekend_pause": True,
}


def _page(console: Client, match_id: str) -> str:
    response = console.get(f"{CHANGELIST}{match_id}/change/")
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_clocks_and_the_public_deadline(console: Client, alice: Player, bob: Player) -> None:
    match_id = start_match(
        "gops",
        [alice, bob],
        options={"num_cards": 3},
        time_control=BYOYOMI,
        disclose_submitted=False,
    )
    assert alice.move(match_id, 1, {"card": 1}).status_code == 202
    html = _page(console, match_id)
    assert "byo-yomi: 3 days, then 5 x 1 day; on timeout a bot (greedy) moves" in html
    # Alice moved, sealed: her clock is shown running like Bob's, never stopped.
    assert html.count("running since") == 2 and "moved (told" not in html
    assert "stopped" not in html
    left = re.findall(r'<td class="left-now">([^<]*)</td>', html)
    assert (
        len(left) == 2 and left[0] == left[1] and left[0].startswith(("3 days", "2 days 23 hours"))
    )

    # The list shows the deadline every reader sees, not the row's own.
    match = Match.objects.get(pk=match_id)
    shown = timestamp(deadline_shown(match, [False, False]))
    assert shown is not None
    Match.objects.filter(pk=match_id).update(deadline=timezone.now() + timedelta(minutes=7))
    internal = timestamp(Match.objects.get(pk=match_id).deadline)
    listing = console.get(CHANGELIST).content.decode()
    assert shown in listing and str(internal) not in listing
    assert shown in _page(console, match_id) and str(internal) not in _page(console, match_id)


def test_a_vacation_shown_and_ended_by_staff(console: Client, alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=FISCHER)
    until = timezone.now() + timedelta(days=2)
    assert bob.post("/accounts/me/vacation", {"until": until.isoformat()}).status_code == 200
    html = _page(console, match_id)
    assert "Fischer: 3 days, +1 day a move, at most 7 days" in html and "weekends paused" in html
    assert "held until" in html and "on vacation until" in html

    users = "/admin/accounts/user/"
    page = console.get(f"{users}{bob.user.pk}/change/").content.decode()
    assert "on vacation until" in page and "bank " in page
    ended = console.post(
        users,
        {
            "action": "end_vacations",
            helpers.ACTION_CHECKBOX_NAME: [str(bob.user.pk), str(alice.user.pk)],
        },
    )
    assert ended.status_code == 302
    bob_now = User.objects.get(pk=bob.user.pk)
    assert bob_now.vacation_until is not None and bob_now.vacation_until <= timezone.now()
    assert bob.get("/accounts/me/vacation").json()["on_vacation"] is False
    html = _page(console, match_id)
    assert "held until" not in html and html.count("running since") == 2
    assert "not on vacation" in console.get(f"{users}{bob.user.pk}/change/").content.decode()
