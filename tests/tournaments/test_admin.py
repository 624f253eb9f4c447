"""The operator console's tournament pages: readable by staff, read-only, nothing of a match
in progress."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from tests.tournaments.driver import tournament, users
from tournaments.models import Tournament, TournamentEvent, TournamentMatch
from tournaments.services.lifecycle import tournament_start

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def test_staff_read_every_page_and_change_nothing():
    now = timezone.now()
    organiser, *players = users(3)
    cup = tournament(organiser, players, now=now)
    tournament_start(tournament_id=cup.pk, now=now)
    table = TournamentMatch.objects.get(round__tournament=cup)
    staff = User.objects.create_superuser("op", "op@example.com", "correct-horse-battery")
    client = Client()
    client.force_login(staff)
    pages = [
        "/admin/tournaments/tournament/",
        f"/admin/tournaments/tournament/{cup.pk}/change/",
        "/admin/tournaments/entry/",
        "/admin/tournaments/tournamentmatch/",
        f"/admin/tournaments/tournamentmatch/{table.pk}/change/",
        "/admin/tournaments/tournamentevent/",
    ]
    for page in pages:
        answer = client.get(page)
        assert answer.status_code == 200, page
        assert b'"stock"' not in answer.content and b"hands" not in answer.content
    assert client.get(f"/admin/tournaments/tournament/{cup.pk}/delete/").status_code == 403
    assert client.post("/admin/tournaments/tournament/add/", {}).status_code == 403
    assert Tournament.objects.filter(pk=cup.pk).exists()
    event = TournamentEvent.objects.filter(tournament=cup, type="started").get()
    assert client.get(f"/admin/tournaments/tournamentevent/{event.pk}/change/").status_code == 200
    outsider = Client()
    outsider.force_login(players[0])
    assert outsider.get("/admin/tournaments/tournament/").status_code == 302
