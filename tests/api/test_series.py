"""Series: ``POST /series`` creates the first match; each next one starts when the previous
one finishes, seats rotated; ``GET /series/{id}`` sums up."""

from __future__ import annotations

import pytest

from games.models import Match
from games.services.bot_seats import bot_moves_play
from tests.players import Player

pytestmark = pytest.mark.django_db

GOPS = {"num_cards": 3}


def test_a_series_plays_its_matches_one_after_another(alice: Player, bob: Player) -> None:
    created = alice.post(
        "/series",
        {"game": "gops", "seats": ["me", {"user": "bob"}], "options": GOPS, "matches": 3},
    )
    assert created.status_code == 201, created.content
    series = created.json()
    assert created["Location"].endswith(f"/api/v1/series/{series['id']}")
    assert (series["length"], series["status"], len(series["matches"])) == (3, "running", 1)
    first = series["matches"][0]["id"]
    assert bob.post(f"/matches/{first}/join").status_code == 200
    # Match 1: bob resigns (alice wins). Match 2 starts at once, seats rotated, all accepted.
    assert bob.post(f"/matches/{first}/resign").status_code == 200
    series = bob.get(f"/series/{series['id']}").json()
    assert [m["status"] for m in series["matches"]] == ["finished", "active"]
    second = bob.match(series["matches"][1]["id"])
    assert [s["player"] for s in second["seats"]] == ["bob", "alice"]
    assert second["series"] == {"id": series["id"], "index": 1}
    # Match 2: alice resigns; match 3: bob resigns.
    assert alice.post(f"/matches/{second['id']}/resign").status_code == 200
    series = alice.get(f"/series/{series['id']}").json()
    third = series["matches"][2]["id"]
    assert [s["player"] for s in alice.match(third)["seats"]] == ["alice", "bob"]
    assert bob.post(f"/matches/{third}/resign").status_code == 200
    series = alice.get(f"/series/{series['id']}").json()
    assert series["status"] == "finished" and len(series["matches"]) == 3
    standings = [(e["player"], e["played"], e["won"]) for e in series["standings"]]
    assert standings == [("alice", 3, 2), ("bob", 3, 1)]
    assert Match.objects.count() == 3  # no fourth match


def test_a_series_against_a_bot_and_its_errors(alice: Player) -> None:
    body = {"game": "gops", "seats": ["me", {"bot": "random"}], "options": GOPS, "matches": 2}
    series = alice.post("/series", body).json()
    first = series["matches"][0]["id"]
    assert alice.match(first)["status"] == "active"
    for step in (1, 2):  # bot then alice; step 3 is forced and ends the match
        assert bot_moves_play(match_id=first, step=step) == 1
        legal = alice.match(first)["legal_moves"]
        assert alice.move(first, step, legal[0]).status_code == 202
    series = alice.get(f"/series/{series['id']}").json()
    assert [m["seats"] for m in series["matches"]] == [["alice", "random"], ["random", "alice"]]
    played = {(e["player"] or e["bot"]): e["played"] for e in series["standings"]}
    assert played == {"alice": 1, "random": 1}
    points = sum(e["points"] for e in series["standings"])
    assert points == sum(alice.match(first)["result"]["scores"])

    too_long = alice.post("/series", {**body, "matches": 21})
    assert too_long.status_code == 400 and too_long.json()["code"] == "validation_error"
    assert alice.post("/series", {**body, "game": "nope"}).status_code == 400
    assert alice.get("/series/not-a-uuid").status_code == 404


def test_an_aborted_match_ends_the_series(alice: Player, bob: Player) -> None:
    body = {"game": "gops", "seats": ["me", {"user": "bob"}], "options": GOPS, "matches": 2}
    series = alice.post("/series", body).json()
    assert bob.post(f"/matches/{series['matches'][0]['id']}/decline").status_code == 200
    series = alice.get(f"/series/{series['id']}").json()
    assert series["status"] == "aborted" and len(series["matches"]) == 1
