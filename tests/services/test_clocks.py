"""The clocks of the three time-control forms, driven by an injected time (no waiting)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from games.models import Match, MatchEvent, Move
from games.services.deadlines import overdue_sweep, step_expire
from games.services.moves import move_submit
from games.time_controls import (
    TimeControl,
    after_counting,
    clock_new,
    clock_start,
    counted_ms,
    expires_at,
    iso,
    spend,
)
from tests.players import Player, start_match

BERLIN = ZoneInfo("Europe/Berlin")
FISCHER = {
    "kind": "fischer",
    "initial_seconds": 3600,
    "increment_seconds": 600,
    "max_seconds": 4000,
}
BYOYOMI = {"kind": "byoyomi", "main_seconds": 60, "periods": 2, "period_seconds": 30}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"  # nothing expires behind the test's back


def _match(match_id: str) -> Match:
    return Match.objects.get(pk=match_id)


def _since(match_id: str, seat: int = 0) -> datetime:
    since = _match(match_id).clocks[seat]["since"]
    assert since is not None
    return datetime.fromisoformat(since)


def _move(player: Player, match_id: str, step: int, card: int, at: datetime) -> None:
    move_submit(match_id=match_id, user=player.user, step=step, move={"card": card}, now=at)


# --- the arithmetic ---------------------------------------------------------------------------


def test_a_weekend_does_not_count_and_daylight_saving_moves_only_its_edges() -> None:
    # Berlin leaves winter time on Sunday 28 March 2027: the weekend lasts 47 hours in UTC.
    friday_noon = datetime(2027, 3, 26, 12, tzinfo=BERLIN)
    due = after_counting(friday_noon, 24 * 3600 * 1000, BERLIN)
    assert due == datetime(2027, 3, 29, 12, tzinfo=BERLIN)  # Monday noon, summer time
    assert due.astimezone(UTC) == datetime(2027, 3, 29, 10, tzinfo=UTC)
    assert counted_ms(friday_noon, due, BERLIN) == 24 * 3600 * 1000
    # without weekends the same day runs out on Saturday noon
    assert after_counting(friday_noon, 24 * 3600 * 1000, None) == datetime(
        2027, 3, 27, 12, tzinfo=BERLIN
    )
    # started on a Saturday, nothing counts before Monday 00:00
    saturday = datetime(2027, 10, 30, 9, tzinfo=BERLIN)  # the autumn change is that Sunday
    assert after_counting(saturday, 3600 * 1000, BERLIN) == datetime(2027, 11, 1, 1, tzinfo=BERLIN)
    assert counted_ms(saturday, datetime(2027, 11, 1, tzinfo=BERLIN), BERLIN) == 0


def test_byoyomi_keeps_a_period_used_in_time_and_loses_each_one_that_runs_out() -> None:
    tc = TimeControl.of(BYOYOMI)
    assert spend(tc, 60_000, 2, 50_000) == (10_000, 2)
    assert spend(tc, 60_000, 2, 75_000) == (0, 2)  # moved within the first period
    assert spend(tc, 60_000, 2, 95_000) == (0, 1)  # one period ran out
    assert spend(tc, 60_000, 2, 125_000) == (0, 0)
    clock = clock_start(clock_new(tc), datetime(2027, 1, 4, tzinfo=UTC))
    assert expires_at(tc, clock) == datetime(2027, 1, 4, 0, 2, tzinfo=UTC)  # 60 + 2 periods of 30


# --- through the services ---------------------------------------------------------------------


def test_fischer_banks_spend_apart_and_gain_the_increment_up_to_the_cap(
    alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4}, time_control=FISCHER)
    t0 = _since(match_id)
    _move(alice, match_id, 1, 4, t0 + timedelta(seconds=100))
    stopped = _match(match_id).clocks
    assert stopped[0]["stop"][0] == 3_500_000 and stopped[1]["stop"] is None
    _move(bob, match_id, 1, 1, t0 + timedelta(seconds=1000))
    match = _match(match_id)
    assert match.step == 2
    assert [c["bank"] for c in match.clocks] == [4_000_000, 3_200_000]  # capped; 3600-1000+600
    t1 = t0 + timedelta(seconds=1000)
    assert [c["since"] for c in match.clocks] == [iso(t1), iso(t1)]
    assert match.deadline == t1 + timedelta(seconds=3200)  # bob's clock runs out first
    shown = alice.match(match_id)["clocks"]
    assert [(c["remaining"], c["running_since"]) for c in shown] == [
        (4000.0, iso(t1)),
        (3200.0, iso(t1)),
    ]
    assert shown[1]["expires_at"] == iso(t1 + timedelta(seconds=3200))


def test_only_the_seat_whose_bank_ran_out_times_out(alice: Player, bob: Player, carol: Player):
    match_id = start_match(
        "gops", [alice, bob, carol], options={"num_cards": 4}, time_control=FISCHER
    )
    t0 = _since(match_id)
    _move(alice, match_id, 1, 4, t0 + timedelta(seconds=10))
    _move(bob, match_id, 1, 3, t0 + timedelta(seconds=3000))
    _move(carol, match_id, 1, 2, t0 + timedelta(seconds=3100))  # step 1 resolves
    t1 = t0 + timedelta(seconds=3100)
    # banks now: alice 4000 (capped), bob 1200, carol 1100; alice and bob move at once
    _move(alice, match_id, 2, 1, t1 + timedelta(seconds=1))
    assert step_expire(match_id=match_id, step=2, now=t1 + timedelta(seconds=1099)) is False
    assert overdue_sweep(now=t1 + timedelta(seconds=1101)) == 1
    timeouts = MatchEvent.objects.filter(match_id=match_id, type="timeout")
    assert [e.data["seat"] for e in timeouts] == [2]
    assert Move.objects.get(match_id=match_id, step=2, seat=2).source == Move.Source.TIMEOUT
    match = _match(match_id)
    assert match.step == 2 and match.deadline == t1 + timedelta(seconds=1200)  # bob's turn next
    assert overdue_sweep(now=t1 + timedelta(seconds=1150)) == 0  # nothing twice


def test_byoyomi_through_a_match(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4}, time_control=BYOYOMI)
    t0 = _since(match_id)
    _move(alice, match_id, 1, 4, t0 + timedelta(seconds=5))
    _move(bob, match_id, 1, 1, t0 + timedelta(seconds=75))  # within his first period
    match = _match(match_id)
    assert [(c["bank"], c["periods"]) for c in match.clocks] == [(55_000, 2), (0, 2)]
    t1 = t0 + timedelta(seconds=75)
    assert match.deadline == t1 + timedelta(seconds=60)  # bob: two periods of 30
    shown = bob.match(match_id)["clocks"][1]
    assert (shown["remaining"], shown["periods_left"]) == (0.0, 2)
    _move(alice, match_id, 2, 3, t1 + timedelta(seconds=1))
    assert step_expire(match_id=match_id, step=2, now=t1 + timedelta(seconds=61)) is True
    match = _match(match_id)
    assert match.step == 3
    # the stand-in moved for bob; his clock keeps one period for it from now on
    assert (match.clocks[1]["bank"], match.clocks[1]["periods"]) == (0, 1)


def test_on_a_turn_step_only_the_seat_to_act_spends(alice: Player, bob: Player) -> None:
    match_id = start_match("memory", [alice, bob], time_control=FISCHER)
    match = _match(match_id)
    acting = match.to_act
    assert len(acting) == 1
    running = [c["since"] is not None for c in match.clocks]
    assert running == [seat in acting for seat in range(2)]
    shown = alice.match(match_id)["clocks"]
    assert [c["running_since"] is not None for c in shown] == running


def test_weekend_pause_counts_in_each_players_zone_recorded_at_the_start(
    alice: Player, bob: Player
) -> None:
    type(alice.user).objects.filter(pk=alice.user.pk).update(time_zone="Europe/Berlin")
    type(bob.user).objects.filter(pk=bob.user.pk).update(time_zone="America/New_York")
    two_days = {**FISCHER, "initial_seconds": 2 * 86400, "max_seconds": 3 * 86400}
    tc = {**two_days, "weekend_pause": True}
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4}, time_control=tc)
    type(alice.user).objects.filter(pk=alice.user.pk).update(time_zone="Asia/Tokyo")  # later
    match = _match(match_id)
    assert [c["tz"] for c in match.clocks] == ["Europe/Berlin", "America/New_York"]
    since = _since(match_id)
    expected = [
        after_counting(since, 2 * 86400 * 1000, ZoneInfo(zone))
        for zone in ("Europe/Berlin", "America/New_York")
    ]
    shown = alice.match(match_id)["clocks"]
    assert [c["expires_at"] for c in shown] == [iso(at) for at in expected]
    assert [c["time_zone"] for c in shown] == ["Europe/Berlin", "America/New_York"]
    assert all(at - since >= timedelta(days=2) for at in expected)
    assert _match(match_id).deadline == min(expected)


def test_forms_are_validated(alice: Player) -> None:
    def refused(tc: dict[str, Any]) -> list[str]:
        body = {"game": "gops", "seats": ["me", "open"], "time_control": tc}
        answer = alice.post("/matches", body)
        assert answer.status_code == 400, answer.content
        return sorted(answer.json()["errors"])

    assert refused({"kind": "sudden"}) == ["time_control.kind"]
    assert refused({**FISCHER, "max_seconds": 3000}) == ["time_control.max_seconds"]
    assert refused({**FISCHER, "initial_seconds": 31 * 86400}) == ["time_control.initial_seconds"]
    assert refused({**BYOYOMI, "periods": 0}) == ["time_control.periods"]
    assert refused({**BYOYOMI, "per_step_seconds": 60}) == ["time_control.per_step_seconds"]
    assert refused({**FISCHER, "weekend_pause": True}) == ["time_control.weekend_pause"]
    created = alice.post(
        "/matches", {"game": "gops", "seats": ["me", "open"], "time_control": BYOYOMI}
    )
    assert created.status_code == 201, created.content
    assert created.json()["time_control"] == {
        **BYOYOMI,
        "on_timeout": "auto_move",
        "auto_move_bot": "greedy",
        "weekend_pause": False,
        "allow_pause": True,
    }
    assert created.json()["clocks"] is None  # an open match: the clocks start with it
