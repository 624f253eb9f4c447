"""deadline_soon: each window's reminder once per step, only for seats still to move."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from games import dispatch
from games.embedded import worker
from games.models import Match
from games.time_controls import iso
from notify.deadlines import deadline_soon_scan
from tests.notify.conftest import Recorder
from tests.players import Player, start_match

TWO_DAYS = {"per_step_seconds": 2 * 24 * 3600, "on_timeout": "auto_move"}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _started(match_id: str) -> datetime:
    """When the open step's clocks started (the scans below run at times after it)."""
    match = Match.objects.get(pk=match_id)
    since = match.clocks[0]["since"]
    return datetime.fromisoformat(since)


def test_reminders_within_a_day_then_an_hour_once_each(
    alice: Player, bob: Player, recorded: Recorder
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=TWO_DAYS)
    t0 = _started(match_id)
    assert deadline_soon_scan(now=t0 + timedelta(hours=1)) == []  # 47 hours left

    alice.move(match_id, 1, {"card": 1})  # alice is done: only bob is still to move
    sent = deadline_soon_scan(now=t0 + timedelta(hours=25))
    assert [(n.user_id, n.type, n.data["within"]) for n in sent] == [
        (bob.user.pk, "deadline_soon", "24h")
    ]
    assert sent[0].data["step"] == 1 and sent[0].match_id == match_id
    assert sent[0].data["deadline"] == iso(t0 + timedelta(days=2))  # bob's own clock
    assert deadline_soon_scan(now=t0 + timedelta(hours=26)) == []

    assert [n.data["within"] for n in deadline_soon_scan(now=t0 + timedelta(hours=47.5))] == ["1h"]
    assert deadline_soon_scan(now=t0 + timedelta(hours=47.6)) == []
    assert [n.type for n in recorded] == ["deadline_soon", "deadline_soon"]


def test_a_late_scan_sends_only_the_nearer_window(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=TWO_DAYS)
    late = _started(match_id) + timedelta(hours=47, minutes=40)
    assert sorted(n.data["within"] for n in deadline_soon_scan(now=late)) == ["1h", "1h"]
    assert deadline_soon_scan(now=late) == []


def test_a_short_step_gets_no_reminder(alice: Player, bob: Player) -> None:
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 3}, time_control={"per_step_seconds": 900}
    )
    assert deadline_soon_scan(now=_started(match_id) + timedelta(minutes=10)) == []


def test_byoyomi_beginning_is_told_once_and_reminders_follow_the_periods(
    alice: Player, bob: Player
) -> None:
    byoyomi = {"kind": "byoyomi", "main_seconds": 3 * 86400, "periods": 3, "period_seconds": 86400}
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=byoyomi)
    t0 = _started(match_id)
    alice.move(match_id, 1, {"card": 1})
    assert deadline_soon_scan(now=t0 + timedelta(days=2, hours=23)) == []  # 3 periods remain
    began = deadline_soon_scan(now=t0 + timedelta(days=3, hours=1))
    assert [(n.user_id, n.data["within"]) for n in began] == [(bob.user.pk, "byoyomi")]
    assert began[0].data["deadline"] == iso(t0 + timedelta(days=6))
    assert deadline_soon_scan(now=t0 + timedelta(days=3, hours=2)) == []
    last_hour = deadline_soon_scan(now=t0 + timedelta(days=5, hours=23, minutes=30))
    assert [n.data["within"] for n in last_hour] == ["1h"]


def test_the_scan_is_a_periodic_job_of_both_runners(settings: Any) -> None:
    assert "deadline_soon_scan" in worker.periodic
    assert dispatch.job("deadline_soon_scan") is not None
    beat = settings.CELERY_BEAT_SCHEDULE["deadline-soon-scan"]
    assert beat["task"] == "notify.tasks.deadline_soon_scan_task"
