"""``GET /games`` lists each bot with a one-line description and its measured strength."""

from __future__ import annotations

from rest_framework.test import APIClient

from games.catalog import RECORDS


def test_every_bot_has_a_description_and_random_and_greedy_are_measured(db: None) -> None:
    games = {game["slug"]: game for game in APIClient().get("/api/v1/games").json()}
    for record in RECORDS:
        listed = {bot["name"]: bot for bot in games[record.slug]["bots"]}
        assert set(listed) == set(record.bots)
        for bot in listed.values():
            assert bot["description"] and "\n" not in bot["description"]
        for name, other in (("greedy", "random"), ("random", "greedy")):
            strength = listed[name]["strength"]
            assert strength is not None and strength["against"] == other
            assert 0 <= strength["win_rate"] <= 1 and strength["deals"] >= 100
        # measured against each other: greedy's margin is random's, negated
        assert listed["greedy"]["strength"]["margin"] > 0
        assert listed["random"]["strength"]["margin"] < 0


def test_a_bot_without_a_note_is_described_by_its_docstring() -> None:
    record = RECORDS[0]
    bare = type(record)(engine=record.engine, bots=record.bots)
    note = bare.bot_note("random")
    assert note.description == "A uniformly random legal move." and note.strength is None
