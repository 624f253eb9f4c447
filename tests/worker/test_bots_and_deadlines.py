"""End to end with a real Celery worker and the Redis broker: bots answer by themselves,
deadlines fire on time, and a worker that was down catches up exactly once."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest

from games.models import Match, MatchEvent, Move
from games.tasks import overdue_sweep_task
from tests.clocks import overdue
from tests.players import Player, make_player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def wait_for(predicate: Any, timeout: float = 20.0) -> None:
    """Poll (briefly) until the worker has done its part."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the worker")


def _status(match_id: str) -> str:
    return Match.objects.values_list("status", flat=True).get(pk=match_id)


def _play_when_asked(player: Player, match_id: str, timeout: float = 30.0) -> dict[str, Any]:
    """Move whenever the match awaits this player, until it ends (the bots answer alone)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        seen = player.match(match_id)
        if seen["status"] != "active":
            return seen
        if seen["legal_moves"]:
            answer = player.move(match_id, seen["step"], seen["legal_moves"][-1])
            assert answer.status_code in (200, 202), answer.content
        else:
            time.sleep(0.02)
    raise AssertionError("match did not end")


def test_gops_against_random_bot_to_the_end(celery_worker):
    alice = make_player("alice")
    created = alice.create("gops", ["me", {"bot": "random"}], options={"num_cards": 6})
    match_id = created.json()["id"]
    final = _play_when_asked(alice, match_id)
    assert final["status"] == "finished" and final["result"]["reason"] == "completed"
    assert Move.objects.filter(match_id=match_id, seat=1, source="bot").count() == 5


def test_hols_four_players_three_bots_to_the_end(celery_worker):
    alice = make_player("alice")
    seats = ["me", {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}]
    match_id = alice.create("hols-der-geier", seats).json()["id"]
    final = _play_when_asked(alice, match_id, timeout=60)
    assert final["status"] == "finished"
    assert len(final["result"]["scores"]) == 4
    steps = final["step"] - 1
    assert Move.objects.filter(match_id=match_id).count() == 4 * steps


def test_a_match_of_bots_plays_itself(celery_worker):
    alice = make_player("alice")
    match_id = alice.create(
        "gops",
        [{"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}],
        options={"num_cards": 5},
    ).json()["id"]
    wait_for(lambda: _status(match_id) == "finished")


def test_live_deadline_auto_moves_on_time(celery_worker):
    alice, bob = make_player("alice"), make_player("bob")
    created = alice.create(
        "gops",
        ["me", {"user": "bob"}],
        options={"num_cards": 3},
        time_control={"per_step_seconds": 1, "on_timeout": "auto_move"},
    ).json()
    bob.post(f"/matches/{created['id']}/join")
    match_id = created["id"]
    alice.move(match_id, 1, {"card": 3})
    deadline = Match.objects.get(pk=match_id).deadline
    wait_for(lambda: Match.objects.get(pk=match_id).step >= 2, timeout=10)
    timeout = MatchEvent.objects.get(match_id=match_id, type="timeout", step=1)
    assert timeout.data == {"seat": 1, "policy": "auto_move"}
    late = (timeout.at - deadline).total_seconds()
    assert 0 <= late < 5, late  # fired by its ETA task, not by a slow sweep


def test_worker_down_then_up_resolves_every_overdue_step_once(start_celery):
    players = [make_player(f"p{i}") for i in range(4)]
    matches = []
    for host, guest in (players[0:2], players[2:4]):
        created = host.create(
            "gops",
            ["me", {"user": guest.name}, {"bot": "greedy"}],
            time_control={"per_step_seconds": 3600, "on_timeout": "auto_move"},
        ).json()
        guest.post(f"/matches/{created['id']}/join")
        matches.append(created["id"])
    # no worker: the bots' tasks wait in the broker; the players move
    for host, match_id in zip((players[0], players[2]), matches, strict=True):
        host.move(match_id, 1, {"card": 1})
    assert all(Match.objects.get(pk=m).step == 1 for m in matches)
    # the deadlines pass while the worker is down
    overdue(*matches, by=timedelta(seconds=5))
    with start_celery():
        overdue_sweep_task.delay()  # what beat sends every few seconds
        wait_for(lambda: all(Match.objects.get(pk=m).step == 2 for m in matches))
        time.sleep(0.5)  # let any duplicate deliveries land, then check nothing doubled
    for match_id in matches:
        assert Match.objects.get(pk=match_id).step == 2
        assert Move.objects.filter(match_id=match_id, step=1).count() == 3
        assert MatchEvent.objects.filter(match_id=match_id, type="step_resolved").count() == 1
        sources = dict(Move.objects.filter(match_id=match_id, step=1).values_list("seat", "source"))
        assert sources[0] == "player"
        assert sources[2] in ("bot", "timeout")
        assert sources[1] == "timeout"
