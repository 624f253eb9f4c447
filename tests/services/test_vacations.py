"""Vacations: the bank, holding correspondence clocks, coming back, automatic vacations."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from accounts.models import User
from accounts.vacation_bank import DAY, bank_at
from games.models import Match, MatchEvent, Move
from games.services.deadlines import overdue_sweep
from games.services.vacations import (
    vacation_apply,
    vacation_end,
    vacation_start,
    vacation_state,
)
from games.time_controls import iso
from notify.generate import notifications_of
from tests.players import Player, start_match

CORRESPONDENCE = {
    "kind": "fischer",
    "initial_seconds": 2 * 86400,
    "increment_seconds": 86400,
    "max_seconds": 5 * 86400,
}
LIVE = {"per_step_seconds": 60}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _since(match_id: str, seat: int) -> datetime:
    since = Match.objects.get(pk=match_id).clocks[seat]["since"]
    return datetime.fromisoformat(since)


def _user(player: Player) -> User:
    return User.objects.get(pk=player.user.pk)


def test_the_bank_accrues_up_to_its_cap(alice: Player, settings: Any) -> None:
    user = _user(alice)
    joined = user.date_joined
    assert bank_at(user, joined) == pytest.approx(7 * DAY)
    half_year = joined + timedelta(days=365 / 2)
    assert bank_at(user, half_year) == pytest.approx(22 * DAY)  # 7 + 15
    assert bank_at(user, joined + timedelta(days=3 * 365)) == pytest.approx(30 * DAY)


def test_a_vacation_holds_correspondence_clocks_only_and_ends_early(
    alice: Player, bob: Player
) -> None:
    slow = start_match("gops", [alice, bob], options={"num_cards": 4}, time_control=CORRESPONDENCE)
    fast = start_match("gops", [alice, bob], options={"num_cards": 4}, time_control=LIVE)
    now = _since(slow, 0) + timedelta(hours=6)
    until = now + timedelta(days=3)
    state = vacation_start(user=alice.user, until=until, now=now)
    assert state.until == until
    assert state.bank_seconds == pytest.approx(bank_at(_user(alice), now))
    assert state.bank_seconds < 4.1 * DAY  # 7 days less the 3 taken (and a little accrued)

    slow_match = Match.objects.get(pk=slow)
    alice_clock = slow_match.clocks[0]
    assert alice_clock["since"] == iso(until)
    assert alice_clock["bank"] == 2 * 86400 * 1000 - 6 * 3600 * 1000  # counted up to now
    assert slow_match.seats.get(index=0).held_until == until
    assert Match.objects.get(pk=fast).seats.get(index=0).held_until is None  # live: never
    shown = bob.match(slow)["clocks"][0]
    assert shown["vacation_until"] == iso(until) and shown["running_since"] == iso(until)
    event = MatchEvent.objects.filter(match_id=slow, type="seat_vacation").get()
    assert event.data == {"seat": 0, "until": iso(until)}
    assert vacation_apply(user_id=alice.user.pk, now=now) == 0  # idempotent

    back = now + timedelta(days=1)
    state = vacation_end(user=alice.user, now=back)
    assert state.until is None
    assert state.bank_seconds == pytest.approx(bank_at(_user(alice), back))
    assert state.bank_seconds > 6 * DAY  # two unused days came back
    clock = Match.objects.get(pk=slow).clocks[0]
    assert clock["since"] == iso(back)
    assert bob.match(slow)["clocks"][0]["vacation_until"] is None


def test_vacation_refusals(alice: Player, bob: Player) -> None:
    now = _user(alice).date_joined + timedelta(days=1)
    answer = alice.post("/accounts/me/vacation", {"until": (now + timedelta(days=40)).isoformat()})
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    ended = alice.client.delete("/api/v1/accounts/me/vacation")
    assert ended.status_code == 409 and ended.json()["code"] == "vacation_conflict"
    vacation_start(user=alice.user, until=now + timedelta(days=5), now=now)
    assert vacation_state(_user(alice), now=now).until is not None
    answer = alice.client.patch(
        "/api/v1/accounts/me/vacation", {"time_zone": "Mars/Olympus"}, format="json"
    )
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    answer = alice.client.patch(
        "/api/v1/accounts/me/vacation", {"time_zone": "Europe/Berlin"}, format="json"
    )
    assert answer.status_code == 200 and answer.json()["time_zone"] == "Europe/Berlin"


def test_a_clock_running_out_starts_an_automatic_vacation_instead_of_a_timeout(
    alice: Player, bob: Player
) -> None:
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 4}, time_control=CORRESPONDENCE
    )
    other = start_match("gops", [bob, alice], options={"num_cards": 4}, time_control=CORRESPONDENCE)
    alice.move(match_id, 1, {"card": 4})
    alice.move(other, 1, {"card": 4})
    out = _since(match_id, 1) + timedelta(days=2, seconds=1)
    assert overdue_sweep(now=out) == 2  # both of bob's clocks ran out
    events = list(
        MatchEvent.objects.filter(match_id__in=[match_id, other]).values_list("type", flat=True)
    )
    assert "timeout" not in events
    assert events.count("auto_vacation") == 1 and events.count("seat_vacation") == 2
    user = _user(bob)
    assert user.vacation_until == out + timedelta(days=3)
    assert not Move.objects.filter(match_id=match_id, step=1, seat=1).exists()
    for held in (match_id, other):  # the sweep held whichever it reached second, too
        bobs = Match.objects.get(pk=held).seats.get(user_id=bob.user.pk)
        assert bobs.held_until == user.vacation_until
    assert vacation_apply(user_id=bob.user.pk, now=out) == 0
    # he may still move while away
    assert bob.move(match_id, 1, {"card": 1}).status_code == 202
    assert Match.objects.get(pk=match_id).step == 2


def test_the_automatic_vacation_notice_and_the_opt_out(alice: Player, bob: Player) -> None:
    User.objects.filter(pk=bob.user.pk).update(auto_vacation=False)
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 4}, time_control=CORRESPONDENCE
    )
    alice.move(match_id, 1, {"card": 4})
    assert overdue_sweep(now=_since(match_id, 1) + timedelta(days=2, seconds=1)) == 1
    assert MatchEvent.objects.filter(match_id=match_id, type="timeout").count() == 1
    assert _user(bob).vacation_until is None


def test_the_notice_reaches_the_player_whose_clock_ran_out(alice: Player, bob: Player) -> None:
    from games.services.unit_of_work import match_change

    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 4}, time_control=CORRESPONDENCE
    )
    alice.move(match_id, 1, {"card": 4})
    out = _since(match_id, 1) + timedelta(days=2, seconds=1)
    from games.services.deadlines import step_time_out

    with match_change(match_id, now=out) as tx:
        assert step_time_out(tx)
        found = notifications_of(tx)
    assert [(n.user_id, n.type) for n in found] == [(bob.user.pk, "auto_vacation")]
    assert found[0].data["until"] == iso(out + timedelta(days=3))
