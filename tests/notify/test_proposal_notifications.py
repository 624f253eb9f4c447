"""The proposal notifications: the other seated players hear of a proposal, its proposer of
the answer that closed it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from games.time_controls import iso
from tests.notify.conftest import Jobs, Recorder, verify
from tests.players import Player, start_match

SLOW = {"time_control": {"per_step_seconds": 3 * 24 * 3600}, "options": {"num_cards": 5}}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _propose(player: Player, match_id: str, **body: Any) -> Any:
    return player.post(f"/matches/{match_id}/proposals", body)


def _answer(player: Player, match_id: str, proposal: int, answer: str) -> Any:
    return player.post(f"/matches/{match_id}/proposals/{proposal}/{answer}")


def _until(days: float = 2) -> str:
    return iso(timezone.now() + timedelta(days=days))


def test_notifications_go_to_the_others_then_to_the_proposer(
    alice: Player,
    bob: Player,
    recorded: Recorder,
    django_capture_on_commit_callbacks: Any,
) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    with django_capture_on_commit_callbacks(execute=True):
        made = _propose(alice, match_id, kind="pause", until=_until()).json()
    assert [(n.type, n.user_id) for n in recorded] == [("proposal", bob.user.pk)]
    assert recorded[0].data == {
        "game": "gops",
        "step": 1,
        "proposal": made["id"],
        "kind": "pause",
        "until": made["until"],
    }
    recorded.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _answer(bob, match_id, made["id"], "accept")
    assert [(n.type, n.user_id) for n in recorded] == [("proposal_answered", alice.user.pk)]
    assert recorded[0].data["answer"] == "accepted"


def test_proposals_are_mailed_unless_the_preference_is_off(
    alice: Player, bob: Player, jobs: Jobs, django_capture_on_commit_callbacks: Any
) -> None:
    for player in (alice, bob):
        player.user.email = f"{player.name}@example.com"
        player.user.save()
        verify(player.user)
    match_id = start_match("gops", [alice, bob], **SLOW)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        made = _propose(alice, match_id, kind="abort").json()
    (asked,) = mail.outbox
    assert asked.to == ["bob@example.com"]
    assert asked.subject == "Facedown: an abort was proposed in your gops match"
    assert match_id in asked.body

    off = alice.client.patch(
        "/api/v1/accounts/me/notifications", {"email_proposals": False}, format="json"
    )
    assert off.status_code == 200 and off.json()["email_proposals"] is False
    with django_capture_on_commit_callbacks(execute=True):
        _answer(bob, match_id, made["id"], "decline")
    assert [m.to for m in mail.outbox] == [["bob@example.com"]]  # nothing more for alice
