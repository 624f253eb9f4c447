"""deadline_soon: each window's reminder once per step, only for seats still to move."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import dispatch
from games.embedded import worker
from games.models import Match
from notify.deadlines import deadline_soon_scan
from tests.notify.conftest import Recorder
from tests.players import Player, start_match

TWO_DAYS = {"per_step_seconds": 2 * 24 * 3600, "on_timeout": "auto_move"}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _deadline_in(match_id: str, left: timedelta, opened_ago: timedelta) -> None:
    now = timezone.now()
    Match.objects.filter(pk=match_id).update(deadline=now + left, step_opened_at=now - opened_ago)


def test_reminders_within_a_day_then_an_hour_once_each(
    alice: Player, bob: Player, recorded: Recorder
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=TWO_DAYS)
    assert deadline_soon_scan() == []  # two days left

    _deadline_in(match_id, timedelta(hours=23), timedelta(hours=25))
    alice.move(match_id, 1, {"card": 1})  # alice is done: only bob is still to move
    sent = deadline_soon_scan()
    assert [(n.user_id, n.type, n.data["within"]) for n in sent] == [
        (bob.user.pk, "deadline_soon", "24h")
    ]
    assert sent[0].data["step"] == 1 and sent[0].match_id == match_id
    assert deadline_soon_scan() == []

    _deadline_in(match_id, timedelta(minutes=30), timedelta(hours=47))
    assert [n.data["within"] for n in deadline_soon_scan()] == ["1h"]
    assert deadline_soon_scan() == []
    assert [n.type for n in recorded] == ["deadline_soon", "deadline_soon"]


def test_a_late_scan_sends_only_the_nearer_window(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=TWO_DAYS)
    _deadline_in(match_id, timedelta(minutes=20), timedelta(hours=30))
    assert sorted(n.data["within"] for n in deadline_soon_scan()) == ["1h", "1h"]
    assert deadline_soon_scan() == []


def test_a_short_step_gets_no_reminder(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=TWO_DAYS)
    _deadline_in(match_id, timedelta(minutes=10), timedelta(minutes=1))
    assert deadline_soon_scan() == []


def test_the_scan_is_a_periodic_job_of_both_runners(settings: Any) -> None:
    assert "deadline_soon_scan" in worker.periodic
    assert dispatch.job("deadline_soon_scan") is not None
    beat = settings.CELERY_BEAT_SCHEDULE["deadline-soon-scan"]
    assert beat["task"] == "notify.tasks.deadline_soon_scan_task"
