"""Time control: deadlines on the match row, auto moves, forfeits, the sweep, idempotency.

Time is shifted, not waited for: a test moves the deadline into the past, then runs the
expiry or the sweep as the task runner would.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match, MatchEvent, Move
from games.services.deadlines import overdue_sweep, step_expire
from tests.clocks import overdue
from tests.players import Player, start_match

TIMED = {"per_step_seconds": 60, "on_timeout": "auto_move"}


def _overdue(match_id: str) -> None:
    overdue(match_id, by=timedelta(seconds=1))


def _types(match_id: str) -> list[str]:
    return list(
        MatchEvent.objects.filter(match_id=match_id).order_by("seq").values_list("type", flat=True)
    )


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def test_deadline_is_on_the_match_and_in_the_phase(alice: Player, bob: Player):
    before = timezone.now()
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    seen = alice.match(match_id)
    deadline = Match.objects.get(pk=match_id).deadline
    assert before + timedelta(seconds=59) < deadline <= timezone.now() + timedelta(seconds=60)
    assert seen["phase"]["deadline"] == deadline.isoformat().replace("+00:00", "Z")
    opened = alice.events(match_id)["results"][-1]
    assert opened["type"] == "step_opened" and opened["data"]["deadline"] is not None
    alice.move(match_id, 1, {"card": 3})
    bob.move(match_id, 1, {"card": 4})
    assert Match.objects.get(pk=match_id).deadline > deadline  # every step gets its own


def test_missed_step_is_auto_moved_and_the_seat_stays_the_players(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob], time_control=TIMED, options={"num_cards": 5})
    alice.move(match_id, 1, {"card": 5})
    _overdue(match_id)
    assert step_expire(match_id=match_id, step=1) is True
    match = Match.objects.get(pk=match_id)
    assert match.step == 2
    auto = Move.objects.get(match_id=match_id, step=1, seat=1)
    assert auto.source == Move.Source.TIMEOUT and auto.receipt is not None
    timeout = MatchEvent.objects.get(match_id=match_id, type="timeout")
    assert timeout.data == {"seat": 1, "policy": "auto_move"}
    # bob plays on as himself
    assert not match.seats.get(index=1).forfeited
    assert bob.move(match_id, 2, bob.match(match_id)["legal_moves"][0]).status_code == 202


def test_forfeit_policy_ranks_the_seat_last_and_a_bot_plays_on(alice, bob, carol):
    match_id = start_match(
        "gops",
        [alice, bob, carol],
        options={"num_cards": 4},
        time_control={"per_step_seconds": 60, "on_timeout": "forfeit"},
    )
    alice.move(match_id, 1, {"card": 4})
    bob.move(match_id, 1, {"card": 1})
    _overdue(match_id)
    assert step_expire(match_id=match_id, step=1)
    assert _types(match_id)[-4:] == ["timeout", "seat_forfeited", "step_resolved", "step_opened"]
    forfeit = MatchEvent.objects.get(match_id=match_id, type="seat_forfeited")
    assert forfeit.data == {"seat": 2, "reason": "timeout"}
    assert Match.objects.get(pk=match_id).step == 2
    for step, (mine, theirs) in ((2, (3, 2)), (3, (2, 3))):
        assert alice.move(match_id, step, {"card": mine}).status_code == 202
        assert bob.move(match_id, step, {"card": theirs}).status_code == 202
    final = alice.match(match_id)
    assert final["status"] == "finished"
    assert final["result"]["ranking"][-1] == [2]
    assert 2 not in final["result"]["winners"]
    sources = set(Move.objects.filter(match_id=match_id, seat=2).values_list("source", flat=True))
    assert sources == {Move.Source.FORFEIT}
    assert carol.move(match_id, 4, {"card": 1}).status_code == 409


def test_forfeit_in_a_two_player_match_ends_it(alice: Player, bob: Player):
    match_id = start_match(
        "hols-der-geier",
        [alice, bob],
        time_control={"per_step_seconds": 60, "on_timeout": "forfeit"},
    )
    assert alice.move(match_id, 1, alice.match(match_id)["legal_moves"][-1]).status_code == 202
    _overdue(match_id)
    step_expire(match_id=match_id, step=1)
    final = alice.match(match_id)
    assert final["status"] == "finished"
    assert final["result"]["reason"] == "forfeit"
    assert final["result"]["winners"] == [0] and final["result"]["ranking"] == [[0], [1]]


def test_both_seats_missing_in_auto_move_resolve_the_step(alice: Player, bob: Player):
    match_id = start_match("hols-der-geier", [alice, bob], time_control=TIMED)
    _overdue(match_id)
    assert step_expire(match_id=match_id, step=1)
    assert Match.objects.get(pk=match_id).step == 2
    assert _types(match_id).count("timeout") == 2


def test_expiry_twice_late_or_after_resolution_changes_nothing(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    # before the deadline: nothing
    assert step_expire(match_id=match_id, step=1) is False
    _overdue(match_id)
    assert step_expire(match_id=match_id, step=1) is True
    snapshot = (list(Move.objects.values()), list(MatchEvent.objects.values()))
    # a second run for the same step, and a late one after the step resolved: nothing
    assert step_expire(match_id=match_id, step=1) is False
    _overdue(match_id)  # step 2 is overdue now, but the task names step 1
    assert step_expire(match_id=match_id, step=1) is False
    assert (list(Move.objects.values()), list(MatchEvent.objects.values())) == snapshot
    assert step_expire(match_id="00000000-0000-0000-0000-000000000000", step=1) is False


def test_untimed_matches_never_expire(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    assert Match.objects.get(pk=match_id).deadline is None
    assert overdue_sweep(now=timezone.now() + timedelta(days=365)) == 0
    assert step_expire(match_id=match_id, step=1, now=timezone.now() + timedelta(days=365)) is False


def test_the_sweep_finds_every_overdue_step(alice: Player, bob: Player, carol: Player):
    overdue = [start_match("gops", [alice, bob], time_control=TIMED) for _ in range(3)]
    waiting = start_match("gops", [alice, carol], time_control=TIMED)
    for match_id in overdue:
        _overdue(match_id)
    assert overdue_sweep() == 3
    assert {Match.objects.get(pk=m).step for m in overdue} == {2}
    assert Match.objects.get(pk=waiting).step == 1
    assert overdue_sweep() == 0


def test_time_control_is_validated_against_the_settings_minimum(alice: Player, settings):
    settings.FACEDOWN_MIN_STEP_SECONDS = 10
    body = {"game": "gops", "seats": ["me", "open"], "time_control": {"per_step_seconds": 9}}
    assert alice.post("/matches", body).json()["code"] == "validation_error"
    body["time_control"]["per_step_seconds"] = 10
    created = alice.post("/matches", body).json()
    assert created["status"] == "open"
    match = Match.objects.get(pk=created["id"])
    assert match.time_control == {
        "kind": "per_step",
        "per_step_seconds": 10,
        "on_timeout": "auto_move",
        "auto_move_bot": "greedy",
        "weekend_pause": False,
        "allow_pause": True,
    }
    assert created["time_control"] == match.time_control


def test_one_broken_match_does_not_stop_the_deadline_sweep(alice, bob, carol, monkeypatch):
    from games.services import deadlines

    broken = start_match("gops", [alice, bob], time_control=TIMED)
    healthy = start_match("gops", [alice, carol], time_control=TIMED)
    overdue(broken, by=timedelta(seconds=9))
    _overdue(healthy)
    real = deadlines.step_expire

    def flaky(*, match_id, step, now=None):
        if str(match_id) == broken:
            raise RuntimeError("broken match")
        return real(match_id=match_id, step=step, now=now)

    monkeypatch.setattr(deadlines, "step_expire", flaky)
    assert overdue_sweep() == 1  # the oldest deadline failed; the next was still expired
    assert Match.objects.get(pk=healthy).step == 2
