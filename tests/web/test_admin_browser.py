"""The operator console in a real browser: an operator logs in to the admin, extends a
match's deadline and hands a seat to a bot, which then moves for it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from accounts.models import User
from games.models import Match, MatchEvent, Move
from games.services.matches import SeatSpec, match_create, match_join
from tests.web.conftest import PASSWORD, shot

pytestmark = pytest.mark.slow


def test_operator_extends_a_deadline_and_hands_a_seat_to_a_bot(
    new_page: Callable[..., Page], embedded_worker: None, user: Callable[[str], User]
) -> None:
    User.objects.create_superuser("operator", "op@example.com", PASSWORD)
    alice, bob = user("alice"), user("bob")
    match = match_create(
        creator=alice,
        game="gops",
        seats=[SeatSpec("me"), SeatSpec("user", "bob")],
        options={"num_cards": 4},
        time_control={"per_step_seconds": 3600},
    )
    match_join(match_id=match.id, user=bob)
    before = Match.objects.get(pk=match.id).deadline
    assert before is not None

    page = new_page()
    page.goto("/admin/login/?next=/admin/games/match/")
    page.get_by_label("Username").fill("operator")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name=str(match.id)).click()
    shot(page, "admin-match")

    page.get_by_role("link", name="Extend the current deadline").click()
    page.get_by_label("Reason").fill("bob asked for more time")
    page.get_by_label("Seconds").fill("7200")
    page.get_by_role("button", name="Extend the current deadline").click()
    page.get_by_text("Extend the current deadline: done").wait_for()
    extended = Match.objects.get(pk=match.id).deadline
    assert extended is not None and (extended - before).total_seconds() >= 7000
    event = MatchEvent.objects.get(match_id=match.id, type="deadline_extended")
    assert event.data["operator"] == "operator"
    assert event.data["reason"] == "bob asked for more time"

    page.get_by_role("link", name="Hand a seat to a bot").click()
    page.get_by_label("Seat").select_option("1")
    page.get_by_label("Bot").select_option("greedy")
    page.get_by_label("Reason").fill("bob is away")
    page.get_by_role("button", name="Hand a seat to a bot").click()
    page.get_by_text("Hand a seat to a bot: done").wait_for()
    shot(page, "admin-after-replace")
    seat = Match.objects.get(pk=match.id).seats.get(index=1)
    assert seat.controlled_by == "bot" and seat.user_id == bob.pk
    replaced = MatchEvent.objects.get(match_id=match.id, type="seat_replaced")
    assert replaced.data["operator"] == "operator" and replaced.data["bot"] == "greedy"

    # the embedded worker lets the bot move for bob's seat in the open step
    page.wait_for_function("true")
    for _ in range(100):
        if Move.objects.filter(match_id=match.id, step=1, seat=1, source="bot").exists():
            break
        page.wait_for_timeout(50)
    assert Move.objects.filter(match_id=match.id, step=1, seat=1, source="bot").exists()
