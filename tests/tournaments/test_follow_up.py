"""A tournament match that finishes leaves the job that ends its round: enqueued after the
finishing change commits, and the job, run as a runner runs it, opens the next round."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest
from django.utils import timezone

from games import dispatch
from tests.tournaments.driver import play_matches, running_matches, tournament, users
from tournaments.models import TournamentRound
from tournaments.services.lifecycle import tournament_start

pytestmark = pytest.mark.django_db


def test_the_last_match_of_a_round_enqueues_the_round_check(
    settings, django_capture_on_commit_callbacks
):
    queued: list[tuple[str, tuple[Any, ...]]] = []

    def runner(name: str, args: tuple[Any, ...], eta: datetime | None) -> None:
        queued.append((name, args))

    dispatch.runner_register("test-capture", runner)
    settings.FACEDOWN_TASK_RUNNER = "test-capture"
    now = timezone.now()
    organiser, *players = users(3)
    cup = tournament(organiser, players, now=now, rounds=2)
    tournament_start(tournament_id=cup.pk, now=now)
    (match,) = running_matches(cup.pk)
    with django_capture_on_commit_callbacks(execute=True):
        play_matches(cup.pk, random.Random(13))
    finished = [args for name, args in queued if name == "tournament_match_finished"]
    assert finished == [(str(match.pk),)]  # once, for the change that finished it
    dispatch.job("tournament_match_finished")(*finished[0])
    assert TournamentRound.objects.filter(tournament=cup).count() == 2
