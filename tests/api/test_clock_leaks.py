"""Clocks under ``disclose_submitted: false`` never tell another reader who has moved: not the
match, its ETag, the list, the event feed, the deadline, a reminder or a digest's due time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from games.models import Match
from games.services.deadlines import overdue_sweep
from notify.deadlines import deadline_soon_scan
from notify.mail import waiting_matches
from tests.leaks import alternatives, reading
from tests.players import Player, start_match

DAY = 86400
FORMS = {
    "per_step": {"per_step_seconds": 2 * DAY},
    "fischer": {
        "kind": "fischer",
        "initial_seconds": 2 * DAY,
        "increment_seconds": DAY,
        "max_seconds": 4 * DAY,
    },
    "byoyomi": {"kind": "byoyomi", "main_seconds": DAY, "periods": 2, "period_seconds": DAY},
}


@pytest.fixture
def dave(player: Callable[..., Player]) -> Player:
    return player("dave")


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _since(match_id: str) -> datetime:
    return datetime.fromisoformat(Match.objects.get(pk=match_id).clocks[0]["since"])


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("game", ["gops", "hols-der-geier"])
def test_a_seat_moving_changes_nothing_anyone_else_reads(
    game: str, form: str, alice: Player, bob: Player, carol: Player, dave: Player
) -> None:
    match_id = start_match(
        game, [alice, bob, carol], disclose_submitted=False, time_control=FORMS[form]
    )
    t0 = _since(match_id)
    before = {who.name: who.get(f"/matches/{match_id}")["ETag"] for who in (bob, carol, dave)}
    card = alice.match(match_id)["legal_moves"][0]

    def world(alice_moves: bool) -> dict[str, Any]:
        if alice_moves:
            assert alice.move(match_id, 1, card).status_code == 202
        seen: dict[str, Any] = {
            who.name: reading(who, match_id, old_etag=before[who.name])
            for who in (bob, carol, dave)
        }
        # a sweep before any clock runs out changes nothing either way
        seen["sweep"] = overdue_sweep(now=t0 + timedelta(hours=20))
        seen["reminders"] = [
            (n.user_id, n.data) for n in deadline_soon_scan(now=t0 + timedelta(hours=30))
        ]
        seen["bob's digest"] = [(str(m.pk), due) for m, due in waiting_matches(bob.user.pk)]
        return seen

    moved, waited = alternatives(lambda: world(True), lambda: world(False))
    reminded_alice = [data for user, data in waited["reminders"] if user == alice.user.pk]
    assert reminded_alice  # she is reminded only where she has not moved
    waited["reminders"] = [(u, d) for u, d in waited["reminders"] if u != alice.user.pk]
    assert moved == waited
    shown = moved["dave"]["match"]
    assert '"remaining":null' not in shown.replace(" ", "")  # her clock shows running


def test_a_disclosed_move_stops_the_clock_for_everyone_but_keeps_its_time_private(
    alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], time_control=FORMS["fischer"])
    assert alice.move(match_id, 1, {"card": 1}).status_code == 202
    mine, theirs = alice.match(match_id)["clocks"][0], bob.match(match_id)["clocks"][0]
    assert mine["running_since"] is None and theirs["running_since"] is None
    assert mine["remaining"] is not None and mine["remaining"] <= 2 * DAY
    assert theirs["remaining"] is None  # how long she took is told when the step resolves
    assert theirs["expires_at"] is None
