"""Invitation-only means private (#46): every read of such a tournament (detail, standings,
crosstable, rounds, events, each export) and every action answers a stranger ``not_found``,
exactly as for a tournament that does not exist; its organiser, its invitees and entrants and
staff read it; a public one anybody reads."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.players import make_player
from tests.tournaments.driver import tournament
from tournaments.services.entries import player_invite

pytestmark = pytest.mark.django_db

READS = (
    "",
    "/standings",
    "/crosstable",
    "/rounds",
    "/events",
    "/export",
    "/export?format=csv",
    "/export?format=trf",
)
ACTIONS = ("/join", "/withdraw", "/start", "/pause", "/resume", "/end")


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _body(answer: Any) -> dict[str, Any]:
    body = dict(answer.json())
    body.pop("instance", None)
    return body


def test_an_invitation_only_tournament_is_not_found_by_strangers() -> None:
    organiser, invitee, stranger = make_player(), make_player(), make_player()
    staff = make_player()
    type(staff.user).objects.filter(pk=staff.user.pk).update(is_staff=True)
    cup = tournament(organiser.user, [], visibility="invitation")
    player_invite(tournament_id=cup.pk, by=organiser.user, username=invitee.name)
    missing = stranger.get(f"/tournaments/{uuid.uuid4()}")
    assert missing.status_code == 404
    for path in READS:
        refused = stranger.get(f"/tournaments/{cup.pk}{path}")
        assert refused.status_code == 404, (path, refused.content)
        assert _body(refused) == _body(missing), path
        for reader in (organiser, invitee, staff):
            assert reader.get(f"/tournaments/{cup.pk}{path}").status_code == 200, path
    for path in ACTIONS:
        refused = stranger.post(f"/tournaments/{cup.pk}{path}")
        assert refused.status_code == 404 and _body(refused) == _body(missing), path
    added = stranger.post(f"/tournaments/{cup.pk}/players", {"username": stranger.name})
    assert added.status_code == 404
    listed = stranger.get("/tournaments").json()["results"]
    assert str(cup.pk) not in [t["id"] for t in listed]


def test_a_public_tournament_is_read_by_anybody(db: None) -> None:
    organiser, stranger = make_player(), make_player()
    cup = tournament(organiser.user, [])
    for path in READS:
        assert stranger.get(f"/tournaments/{cup.pk}{path}").status_code == 200, path


def test_an_entrant_who_withdrew_still_reads_it(db: None) -> None:
    organiser, player = make_player(), make_player()
    cup = tournament(organiser.user, [], visibility="invitation")
    player_invite(tournament_id=cup.pk, by=organiser.user, username=player.name)
    assert player.post(f"/tournaments/{cup.pk}/join").status_code == 200
    assert player.post(f"/tournaments/{cup.pk}/withdraw").status_code == 200
    assert player.get(f"/tournaments/{cup.pk}/standings").status_code == 200
