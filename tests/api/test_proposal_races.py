"""Answers to a proposal racing each other, and the deadline sweep, from real threads on the
real PostgreSQL: the match lock orders them, so each race resolves one way, nothing doubled."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Match, MatchEvent, Proposal
from games.services.deadlines import step_expire
from games.time_controls import iso
from tests.api.test_concurrency import Answer, race, together
from tests.clocks import overdue
from tests.players import Player, make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLOW = {"time_control": {"per_step_seconds": 3 * 24 * 3600}, "options": {"num_cards": 5}}
JOIN_SECONDS = 30


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _count(match_id: str, kind: str) -> int:
    return MatchEvent.objects.filter(match_id=match_id, type=kind).count()


def _client(player: Player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
    return client


def _accept(match_id: str, proposal: int) -> Callable[[Any], Any]:
    return lambda client: client.post(
        f"/api/v1/matches/{match_id}/proposals/{proposal}/accept", {}, format="json"
    )


def test_the_last_two_accepts_at_once_abort_the_match_once() -> None:
    alice, bob, carol = make_player(), make_player(), make_player()
    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    made = alice.post(f"/matches/{match_id}/proposals", {"kind": "abort"}).json()
    answers = race([_accept(match_id, made["id"])] * 2, [bob, carol])
    assert [a.status for a in answers] == [200, 200], answers
    assert sorted(a.body["status"] for a in answers) == ["accepted", "open"]
    assert Proposal.objects.get(pk=made["id"]).accepted == [0, 1, 2]
    assert Match.objects.get(pk=match_id).status == Match.Status.ABORTED
    assert _count(match_id, "match_aborted") == 1
    assert _count(match_id, "proposal_answered") == 2


def test_one_seat_accepting_twice_at_once_counts_once() -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob], **SLOW)
    until = iso(timezone.now() + timedelta(days=2))
    made = alice.post(f"/matches/{match_id}/proposals", {"kind": "pause", "until": until}).json()
    answers = race([_accept(match_id, made["id"])] * 2, [bob, bob])
    assert sorted(a.status for a in answers) == [200, 409], answers
    assert {a.code for a in answers if a.status == 409} <= {"already_answered", "proposal_closed"}
    assert _count(match_id, "match_paused") == 1
    assert _count(match_id, "proposal_answered") == 1


@pytest.mark.parametrize("attempt", range(3))
def test_an_accept_racing_the_deadline_sweep_resolves_one_way(attempt: int) -> None:
    alice, bob = make_player(), make_player()
    # plain timeouts: no automatic vacation takes over
    User.objects.filter(pk__in=[alice.user.pk, bob.user.pk]).update(auto_vacation=False)
    match_id = start_match("gops", [alice, bob], **SLOW)
    until = iso(timezone.now() + timedelta(days=2))
    made = alice.post(f"/matches/{match_id}/proposals", {"kind": "pause", "until": until}).json()
    overdue(match_id)
    accepted, expired = together(
        lambda: Answer(_accept(match_id, made["id"])(_client(bob))),
        lambda: step_expire(match_id=match_id, step=1),
    )
    assert accepted.status == 200 and accepted.body["status"] == "accepted", accepted
    match = Match.objects.get(pk=match_id)
    assert _count(match_id, "match_paused") == 1
    assert match.paused_until is not None
    if expired:  # the sweep first: both late seats moved by the stand-in, once
        assert _count(match_id, "timeout") == 2 and match.step == 2
    else:  # the pause first: the clocks that ran out wait for its end, nothing timed out
        assert _count(match_id, "timeout") == 0 and match.step == 1
        assert match.deadline == match.paused_until
    # Whichever came first, the sweep now finds nothing to do before the pause ends.
    assert step_expire(match_id=match_id, step=match.step) is False
