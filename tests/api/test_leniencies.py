"""Input the schema types strictly is read strictly (#46): an integer as a string, a moment
without its time zone and a time zone that is not an IANA name are refused with
``validation_error`` on their field, and change nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import AccessToken, User
from games.models import Proposal
from tests.players import API, Player, start_match

DAY = 24 * 3600


def _refused(answer: Any, field: str) -> None:
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["code"] == "validation_error" and field in body["errors"], body


def test_expires_in_as_a_string_is_refused(alice: Player) -> None:
    before = AccessToken.objects.filter(user=alice.user).count()
    body = {"name": "bot", "scopes": ["read"], "expires_in": "60"}
    _refused(alice.post("/accounts/me/tokens", body), "expires_in")
    login = {"username": alice.name, "password": "correct-horse-battery", "expires_in": "3600"}
    _refused(alice.post("/accounts/token", login), "expires_in")
    assert AccessToken.objects.filter(user=alice.user).count() == before
    assert alice.post("/accounts/me/tokens", {**body, "expires_in": 60}).status_code == 201


def test_a_moment_without_its_time_zone_is_refused(alice: Player, bob: Player) -> None:
    naive = (timezone.now() + timedelta(days=2)).replace(tzinfo=None).isoformat()
    _refused(alice.post("/accounts/me/vacation", {"until": naive}), "until")
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 3}, time_control={"per_step_seconds": DAY}
    )
    pause = {"kind": "pause", "until": naive}
    _refused(alice.post(f"/matches/{match_id}/proposals", pause), "until")
    assert not Proposal.objects.filter(match_id=match_id).exists()
    _refused(alice.post(f"/matches/{match_id}/proposals", {**pause, "until": 12}), "until")
    tournament = {
        "name": "Naive cup",
        "game": "gops",
        "options": {"num_cards": 3},
        "format": "round_robin",
        "round_limit_seconds": DAY,
        "starts_at": naive,
    }
    _refused(alice.post("/tournaments", tournament), "starts_at")
    aware = (timezone.now() + timedelta(days=2)).isoformat()
    assert alice.post("/tournaments", {**tournament, "starts_at": aware}).status_code == 201


@pytest.mark.parametrize("zone", ["localtime", "posixrules", "Europe/Nowhere", "utc+2"])
def test_a_time_zone_must_be_an_iana_name(alice: Player, zone: str) -> None:
    _refused(
        alice.client.patch(f"{API}/accounts/me/vacation", {"time_zone": zone}, format="json"),
        "time_zone",
    )
    assert User.objects.get(pk=alice.user.pk).time_zone == "UTC"


def test_an_iana_name_is_taken(alice: Player) -> None:
    answer = alice.client.patch(
        f"{API}/accounts/me/vacation", {"time_zone": "Europe/Berlin"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    assert User.objects.get(pk=alice.user.pk).time_zone == "Europe/Berlin"
