"""Notifications computed from committed changes, and their fan-out to the channels."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.services import unit_of_work
from games.services.follow_ups import change_committed
from notify.dispatch import register_channel, unregister_channel
from notify.generate import notifications_of
from tests.leaks import alternatives
from tests.notify.conftest import Recorder
from tests.players import Player, play_to_end, start_match

GOPS3 = {"options": {"num_cards": 3}}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def test_a_match_from_invitation_to_its_end(
    alice: Player, bob: Player, recorded: Recorder, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        created = alice.create("gops", ["me", {"user": "bob"}], **GOPS3)
        match_id = created.json()["id"]
    assert recorded.of(bob.user.pk) == [("invited", None)]
    assert recorded[0].data == {"game": "gops", "by": "alice"}
    assert recorded.of(alice.user.pk) == []

    recorded.clear()
    with django_capture_on_commit_callbacks(execute=True):
        bob.post(f"/matches/{match_id}/join", {})
    for user in (alice.user, bob.user):
        assert recorded.of(user.pk) == [("match_started", 1), ("your_move", 1)]
    mine = next(n for n in recorded if n.type == "your_move" and n.user_id == alice.user.pk)
    assert mine.match_id == match_id
    assert mine.data == {"game": "gops", "step": 1, "phase": "simultaneous", "deadline": None}

    recorded.clear()
    with django_capture_on_commit_callbacks(execute=True):
        alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0])
    assert recorded == []  # a submission opens nothing for anyone

    with django_capture_on_commit_callbacks(execute=True):
        bob.move(match_id, 1, bob.match(match_id)["legal_moves"][0])
    for user in (alice.user, bob.user):
        assert recorded.of(user.pk) == [("step_resolved", 1), ("your_move", 2)]

    recorded.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(match_id, [alice, bob])
    finished = [n for n in recorded if n.type == "match_finished"]
    assert sorted(n.user_id for n in finished) == [alice.user.pk, bob.user.pk]
    assert finished[0].data["outcome"] == "finished"
    assert len({n.id for n in recorded}) == len(recorded)  # every id names one occurrence


def test_a_refused_move_notifies_nobody(
    alice: Player, bob: Player, recorded: Recorder, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = start_match("gops", [alice, bob], **GOPS3)
    with django_capture_on_commit_callbacks(execute=True):
        assert alice.move(match_id, 1, {"card": 99}).status_code == 400
        assert alice.post(f"/matches/{match_id}/resign").status_code == 200
    assert [n.type for n in recorded] == ["match_finished", "match_finished"]


def test_declined_invitation_reads_as_aborted(
    alice: Player, bob: Player, recorded: Recorder, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = alice.create("gops", ["me", {"user": "bob"}], **GOPS3).json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        assert bob.post(f"/matches/{match_id}/decline").status_code == 200
    assert {n.data["outcome"] for n in recorded} == {"aborted"}
    assert sorted(n.user_id for n in recorded) == [alice.user.pk, bob.user.pk]


def test_a_failing_channel_breaks_neither_the_move_nor_the_others(
    alice: Player,
    bob: Player,
    recorded: Recorder,
    django_capture_on_commit_callbacks: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(notifications: Any) -> None:
        raise RuntimeError("the channel is down")

    register_channel("broken", broken)
    try:
        match_id = start_match("gops", [alice, bob], **GOPS3)
        alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0])
        with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
            answer = bob.move(match_id, 1, bob.match(match_id)["legal_moves"][0])
    finally:
        unregister_channel("broken")
    assert answer.status_code == 202
    assert [n.type for n in recorded].count("your_move") == 2
    assert "notification channel broken failed (RuntimeError)" in caplog.text


def test_computing_them_adds_no_query(
    alice: Player, bob: Player, django_capture_on_commit_callbacks: Any
) -> None:
    """They are computed after the commit (``change_committed``), from what the change holds."""
    counted: list[tuple[int, int]] = []

    def counting(change: unit_of_work.MatchChange, **_: Any) -> None:
        with CaptureQueriesContext(connection) as queries:
            found = notifications_of(change)
        counted.append((len(found), len(queries)))

    change_committed.connect(counting, dispatch_uid="test.counting")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            match_id = start_match("gops", [alice, bob], **GOPS3)
            alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0])
            bob.move(match_id, 1, bob.match(match_id)["legal_moves"][0])
    finally:
        change_committed.disconnect(dispatch_uid="test.counting")
    assert sum(found for found, _ in counted) >= 9
    assert [queries for _, queries in counted] == [0] * len(counted)


def test_what_they_carry_does_not_depend_on_a_sealed_move(
    alice: Player, bob: Player, recorded: Recorder, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = start_match("gops", [alice, bob], **GOPS3, disclose_submitted=False)

    def playing(card: int) -> Callable[[], str]:
        def play() -> str:
            recorded.clear()
            with django_capture_on_commit_callbacks(execute=True):
                alice.move(match_id, 1, {"card": card})
                bob.move(match_id, 1, {"card": 2})
            # everything but the time each variant ran at
            sent = [{**n.as_json(), "at": None, "user": n.user_id} for n in recorded]
            return json.dumps(sent, sort_keys=True)

        return play

    first, second = alternatives(playing(1), playing(3))
    assert first == second and len(json.loads(first)) == 4
    assert '"card"' not in first and "hand" not in first


def test_an_outbound_channel_failing_leaves_the_others_running(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from notify import outbound

    ran: list[str] = []

    def broken(items: Any) -> int:
        raise RuntimeError("smtp is down")

    def working(items: Any) -> int:
        ran.append("push")
        return len(items)

    monkeypatch.setattr(outbound, "CHANNELS", {"email": broken, "push": working})
    with caplog.at_level(logging.ERROR):
        done = outbound.notifications_outbound([{"type": "your_move", "user": 1}])
    assert done == {"push": 1} and ran == ["push"]
    assert "outbound channel email failed (RuntimeError)" in caplog.text
