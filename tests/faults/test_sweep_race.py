"""Beat is not the only sweeper: sweeps running at once (in every worker) share the overdue
matches through ``SKIP LOCKED`` claims held while each step is expired, and expire each step
exactly once."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Match, MatchEvent, Move
from games.services.deadlines import overdue_sweep
from tests.clocks import overdue
from tests.players import make_player, start_match

pytestmark = pytest.mark.django_db(transaction=True)

MATCHES = 12


def test_two_racing_sweeps_expire_each_overdue_step_once(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"
    alice, bob = make_player("alice"), make_player("bob")
    matches = [
        start_match(
            "gops",
            [alice, bob],
            options={"num_cards": 3},
            time_control={"per_step_seconds": 60, "on_timeout": "auto_move"},
        )
        for _ in range(MATCHES)
    ]
    for match_id in matches:  # alice moves; bob's seat is late everywhere
        assert alice.move(match_id, 1, {"card": 1}).status_code == 202
    overdue(*matches, by=timedelta(seconds=1))

    start = threading.Barrier(2)
    changed: list[int] = []

    def sweep() -> None:
        try:
            start.wait(5)
            changed.append(overdue_sweep())
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert sum(changed) == MATCHES, changed
    for match_id in matches:
        assert Match.objects.get(pk=match_id).step == 2
        timeouts = MatchEvent.objects.filter(match_id=match_id, type="timeout", step=1)
        assert timeouts.count() == 1
        assert Move.objects.filter(match_id=match_id, step=1).count() == 2
        assert Move.objects.get(match_id=match_id, step=1, seat=1).source == "timeout"
    assert overdue_sweep() == 0  # nothing left, nothing redone


def test_a_claimed_match_is_skipped_by_another_sweep(settings):
    """While one sweep holds a match (mid-expiry), another sweep passes it by without waiting."""
    from games.locks import overdue_step_claim

    settings.FACEDOWN_TASK_RUNNER = "off"
    alice, bob = make_player("alice"), make_player("bob")
    held, free = (
        start_match(
            "gops",
            [alice, bob],
            options={"num_cards": 3},
            time_control={"per_step_seconds": 60},
        )
        for _ in range(2)
    )
    overdue(held, by=timedelta(seconds=2))
    overdue(free, by=timedelta(seconds=1))
    result: list[int] = []

    with overdue_step_claim(now=timezone.now()) as claimed:
        assert claimed is not None and str(claimed[0]) == held

        def other() -> None:
            try:
                result.append(overdue_sweep())
            finally:
                connection.close()

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(10)
        assert not thread.is_alive()
    assert result == [1]
    assert Match.objects.get(pk=free).step == 2
    assert Match.objects.get(pk=held).step == 1
    assert overdue_sweep() == 1
