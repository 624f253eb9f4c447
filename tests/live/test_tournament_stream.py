"""A tournament's stream on a real uvicorn process: the standings first, then the standings
again when a round ends (published through Redis after the round's change committed)."""

from __future__ import annotations

import random

import pytest
from django.utils import timezone

from tests.live.client import Stream
from tests.live.conftest import Server
from tests.players import Player
from tests.tournaments.driver import play_matches, tournament
from tournaments.services.entries import player_invite
from tournaments.services.lifecycle import round_check, tournament_start

pytestmark = pytest.mark.usefixtures("transactional_db")


def test_the_standings_then_their_change_when_a_round_ends(
    asgi: Server, alice: Player, bob: Player, carol: Player, settings
):
    settings.FACEDOWN_TASK_RUNNER = "off"
    now = timezone.now()
    cup = tournament(alice.user, [bob.user, carol.user], now=now, rounds=1)
    tournament_start(tournament_id=cup.pk, now=now)
    path = f"/api/v1/tournaments/{cup.pk}/stream"
    stream = Stream(asgi.port, path, {"Authorization": f"Token {alice.token}"})
    assert stream.status == 200
    (first,) = stream.events(1)
    assert first.type == "standings" and first.id is None
    assert first.data == alice.get(f"/tournaments/{cup.pk}/standings").json()
    assert first.data["round"] == 0 and all(r["played"] == 0 for r in first.data["rows"])
    play_matches(cup.pk, random.Random(2))
    assert stream.quiet(1) == []  # a finished match alone changes nothing until recorded
    round_check(tournament_id=cup.pk, now=now)
    (changed,) = stream.events(1)
    assert changed.type == "standings" and changed.data["round"] == 1
    assert changed.data == alice.get(f"/tournaments/{cup.pk}/standings").json()
    stream.close()
    unknown = Stream(asgi.port, "/api/v1/tournaments/not-an-id/stream", {})
    assert unknown.status in (401, 404)


def test_an_invitation_only_tournament_streams_to_its_own_people_only(
    asgi: Server, alice: Player, bob: Player, carol: Player, settings
):
    """A stranger's stream is not_found, as a missing tournament's (#46)."""
    settings.FACEDOWN_TASK_RUNNER = "off"
    cup = tournament(alice.user, [], visibility="invitation")
    player_invite(tournament_id=cup.pk, by=alice.user, username=bob.name)
    path = f"/api/v1/tournaments/{cup.pk}/stream"
    stranger = Stream(asgi.port, path, {"Authorization": f"Token {carol.token}"})
    assert (stranger.status, stranger.body()["code"]) == (404, "not_found")
    for reader in (alice, bob):
        allowed = Stream(asgi.port, path, {"Authorization": f"Token {reader.token}"})
        assert allowed.status == 200 and allowed.events(1)[0].type == "standings"
        allowed.close()
