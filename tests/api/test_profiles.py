"""``GET /players/{username}``: public, finished matches only."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.players import API, Player, start_match

pytestmark = pytest.mark.django_db

GOPS = {"num_cards": 3}


def _resign_match(winner: Player, loser: Player) -> str:
    match_id = start_match("gops", [winner, loser], options=GOPS)
    assert loser.post(f"/matches/{match_id}/resign").status_code == 200
    return match_id


def test_a_profile_counts_ratings_streak_and_recent_matches(alice: Player, bob: Player) -> None:
    first = _resign_match(alice, bob)
    second = _resign_match(bob, alice)
    third = _resign_match(bob, alice)
    running = start_match("gops", [alice, bob], options=GOPS)
    assert alice.move(running, 1, {"card": 3}).status_code == 202

    profile = APIClient().get(f"{API}/players/alice")  # public: no credentials
    assert profile.status_code == 200
    body = profile.json()
    assert body["player"] == "alice"
    (gops,) = body["ratings"]
    # Resigned before moving: played and won count, no rating (rating_rules).
    assert (gops["game"], gops["played"], gops["won"], gops["rated_matches"]) == ("gops", 3, 1, 0)
    assert gops["rating"] is None
    assert body["streak"] == {"kind": "lost", "length": 2}
    assert [m["id"] for m in body["recent"]] == [third, second, first]
    assert body["recent"][0]["won"] is False and body["recent"][2]["won"] is True
    assert body["recent"][0]["players"] == ["bob", "alice"]
    assert running not in profile.content.decode()  # nothing of a running match
    assert bob.get("/players/bob").json()["streak"] == {"kind": "won", "length": 2}


def test_unknown_and_closed_players_are_not_found(alice: Player) -> None:
    assert alice.get("/players/nobody").status_code == 404
    fresh = alice.get("/players/alice").json()
    assert fresh["ratings"] == [] and fresh["recent"] == []
    assert fresh["streak"] == {"kind": None, "length": 0}
    alice.user.is_active = False
    alice.user.save()
    assert APIClient().get(f"{API}/players/alice").status_code == 404
