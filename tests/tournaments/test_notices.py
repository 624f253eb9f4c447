"""The tournament's notifications: built after commit, handed to every channel, carrying
only public facts (names, rounds, places)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from notify.dispatch import register_channel, unregister_channel
from notify.kinds import Notification
from notify.mail import mail_notifications
from notify.models import MailItem, NotificationSettings
from tests.tournaments.driver import play_matches, tournament, users
from tournaments.services.entries import player_invite
from tournaments.services.lifecycle import round_check, round_limit_apply, tournament_start

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


@pytest.fixture
def heard() -> Iterator[list[Notification]]:
    got: list[Notification] = []
    register_channel("test-tournaments", got.extend)
    yield got
    unregister_channel("test-tournaments")


def _of(heard: list[Notification], kind: str) -> list[dict[str, Any]]:
    return [n.as_json() | {"user": n.user_id} for n in heard if n.type == kind]


def test_round_started_stand_in_and_finished(heard, django_capture_on_commit_callbacks):
    now = timezone.now()
    organiser, *players = users(3)
    cup = tournament(organiser, players, now=now, format="swiss", rounds=1, round_limit_seconds=600)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_start(tournament_id=cup.pk, now=now)
    started = _of(heard, "tournament_round_started")
    assert sorted(n["user"] for n in started) == sorted(p.pk for p in players)
    names = {p.pk: p.username for p in players}
    for note in started:
        assert note["opponents"] == [n for pk, n in names.items() if pk != note["user"]]
        assert note["tournament"] == str(cup.pk) and note["round"] == 1 and note["match"]
        assert note["deadline"] == (now + timedelta(seconds=600)).isoformat().replace("+00:00", "Z")
    with django_capture_on_commit_callbacks(execute=True):
        round_limit_apply(tournament_id=cup.pk, now=now + timedelta(seconds=600))
    assert sorted(n["user"] for n in _of(heard, "tournament_stand_in")) == sorted(names)
    play_matches(cup.pk, random.Random(1))
    with django_capture_on_commit_callbacks(execute=True):
        round_check(tournament_id=cup.pk, now=now + timedelta(hours=1))
    finished = _of(heard, "tournament_finished")
    assert sorted(n["place"] for n in finished) == [1, 2]
    assert all(n["match"] is None and n["players"] == 2 for n in finished)
    # No move, card or score of the match in any of them.
    for note in heard:
        assert not {"move", "moves", "state", "hands", "score", "scores"} & set(note.as_json())


def test_an_invitation_is_mailed_with_the_tournaments_link(
    heard, django_capture_on_commit_callbacks
):
    now = timezone.now()
    organiser, guest = users(2)
    guest.email = "guest@example.com"
    guest.save(update_fields=["email"])
    NotificationSettings.objects.create(user=guest, verified_email="guest@example.com")
    cup = tournament(organiser, [], now=now, visibility="invitation")
    with django_capture_on_commit_callbacks(execute=True):
        player_invite(tournament_id=cup.pk, by=organiser, username=guest.username, now=now)
    (note,) = heard
    assert note.type == "tournament_registration_open" and note.user_id == guest.pk
    assert mail_notifications([{**note.as_json(), "user": note.user_id}]) == 1
    assert MailItem.objects.get(user=guest).match_id is None
    (sent,) = [m for m in mail.outbox if m.to == ["guest@example.com"]]
    assert "Test cup" in sent.subject and f"/tournaments/{cup.pk}" in sent.body
