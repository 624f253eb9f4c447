"""The tournament API over HTTP: a whole small tournament, what a match in progress shows
(nothing of itself in the standings), problems with stable codes, and the token's scope."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.tokens import token_issue
from games.models import Match
from tests.players import Player, make_player
from tournaments.models import Entry
from tournaments.services.lifecycle import tournaments_sweep

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _create(organiser: Player, **extra: Any) -> dict[str, Any]:
    body = {
        "name": "Spring cup",
        "game": "gops",
        "options": {"num_cards": 3},
        "format": "round_robin",
        "round_limit_seconds": 86400,
        "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
        **extra,
    }
    created = organiser.post("/tournaments", body)
    assert created.status_code == 201, created.content
    return created.json()


def _play_running(tid: str, players: list[Player]) -> None:
    by_name = {p.name: p for p in players}
    for _ in range(50):
        active = [
            table
            for row in players[0].get(f"/tournaments/{tid}/rounds").json()
            for table in row["tables"]
            if table["match"] and Match.objects.get(pk=table["match"]).status == Match.Status.ACTIVE
        ]
        if not active:
            return
        for table in active:
            for name in table["players"]:
                seen = by_name[name].match(table["match"])
                if seen["status"] == "active" and seen["legal_moves"]:
                    move = seen["legal_moves"][-1]
                    answer = by_name[name].move(table["match"], seen["step"], move)
                    assert answer.status_code == 202, answer.content


def test_a_whole_tournament_over_http():
    organiser = make_player("organiser")
    players = [make_player(f"entrant{i}") for i in range(3)]
    cup = _create(organiser)
    tid = cup["id"]
    assert cup["you"] == {
        "registered": False,
        "invited": False,
        "status": None,
        "may_join": True,
        "why_not": None,
        "is_organiser": True,
        "rating": 1500,  # a newcomer's, as players read it
    }
    for player in players:
        joined = player.post(f"/tournaments/{tid}/join")
        assert joined.status_code == 200, joined.content
        assert joined.json()["you"]["registered"] is True
    assert players[0].post(f"/tournaments/{tid}/join").json()["code"] == "already_registered"
    assert players[0].post(f"/tournaments/{tid}/start").json()["code"] == "permission_denied"
    started = organiser.post(f"/tournaments/{tid}/start")
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert started.json()["rounds"] == 3
    for _ in range(3):
        _play_running(tid, players)
        tournaments_sweep()  # the periodic job picks up the finished round
    detail = organiser.get(f"/tournaments/{tid}").json()
    assert detail["status"] == "finished"
    standings = organiser.get(f"/tournaments/{tid}/standings").json()
    assert standings["round"] == 3 and len(standings["rows"]) == 3
    assert sum(row["score"] for row in standings["rows"]) == 3 + 3  # 3 games, 3 byes
    crosstable = organiser.get(f"/tournaments/{tid}/crosstable").json()
    assert crosstable["players"] == [row["player"] for row in standings["rows"]]
    assert all(len(crosstable["cells"][i][i]) == 0 for i in range(3))
    exported = organiser.get(f"/tournaments/{tid}/export?format=csv")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert [r["player"] for r in rows] == crosstable["players"]
    as_json = json.loads(organiser.get(f"/tournaments/{tid}/export").content)
    assert as_json["standings"] == standings and len(as_json["rounds"]) == 3
    # The arbiters' report file: its header, one 001 line per player by name, and the three
    # byes written as TRF writes them.
    report = organiser.get(f"/tournaments/{tid}/export?format=trf")
    assert report.status_code == 200 and report["Content-Type"].startswith("text/plain")
    lines = report.content.decode().splitlines()
    assert lines[0].startswith("012 ")
    player_lines = [line for line in lines if line.startswith("001 ")]
    assert len(player_lines) == 3
    assert {p.name for p in players} == {
        name for name in crosstable["players"] if any(name in line for line in player_lines)
    }
    assert sum(line.count("0000 - U") for line in player_lines) == 3
    events = [e["type"] for e in organiser.get(f"/tournaments/{tid}/events").json()]
    assert events[:5] == ["created", "joined", "joined", "joined", "started"]
    assert events[-1] == "finished"
    mine = players[0].get("/tournaments?mine=true&status=finished").json()["results"]
    assert [t["id"] for t in mine] == [tid]


def test_a_match_in_progress_shows_nothing_of_itself():
    organiser = make_player("host")
    players = [make_player(f"seat{i}") for i in range(2)]
    tid = _create(organiser)["id"]
    for player in players:
        player.post(f"/tournaments/{tid}/join")
    organiser.post(f"/tournaments/{tid}/start")
    reads = (
        "standings",
        "crosstable",
        "rounds",
        "export",
        "export?format=csv",
        "export?format=trf",
    )

    def seen() -> dict[str, bytes]:
        return {path: organiser.get(f"/tournaments/{tid}/{path}").content for path in reads}

    before = seen()
    (row,) = organiser.get(f"/tournaments/{tid}/rounds").json()
    (table,) = row["tables"]
    assert table["result"] is None
    by_name = {p.name: p for p in players}
    first = by_name[table["players"][0]]
    state = first.match(table["match"])
    assert first.move(table["match"], state["step"], state["legal_moves"][0]).status_code == 202
    second = by_name[table["players"][1]]
    state = second.match(table["match"])
    assert second.move(table["match"], state["step"], state["legal_moves"][0]).status_code == 202
    assert Match.objects.get(pk=table["match"]).step == 2  # a step resolved in the match
    assert seen() == before


def test_problems_have_stable_codes_and_change_nothing():
    organiser = make_player("boss")
    other = make_player("someone")
    bad = organiser.post("/tournaments", {"name": "x", "game": "nope", "format": "swiss"})
    assert bad.status_code == 400 and bad.json()["code"] == "validation_error"
    seats = organiser.post(
        "/tournaments",
        {
            "name": "Too many",
            "game": "gops",
            "seats": 4,
            "format": "swiss",
            "rounds": 3,
            "round_limit_seconds": 86400,
            "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
        },
    )
    assert seats.status_code == 400 and "seats" in seats.json()["errors"]
    featured = organiser.post(
        "/tournaments",
        {
            "name": "Shiny",
            "game": "gops",
            "format": "knockout",
            "round_limit_seconds": 86400,
            "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
            "featured": True,
        },
    )
    assert featured.status_code == 403 and featured.json()["code"] == "permission_denied"
    closed = _create(organiser, visibility="invitation", min_rated_games=0)
    refused = other.post(f"/tournaments/{closed['id']}/join")
    # Invitation-only is private: to a stranger it does not exist (tests/tournaments/
    # test_privacy.py).
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert organiser.post(f"/tournaments/{closed['id']}/pause").json()["code"] == (
        "tournament_not_open"
    )
    invited = organiser.post(f"/tournaments/{closed['id']}/players", {"username": other.name})
    assert invited.status_code == 201 and invited.json()["invited"] is True
    assert other.post(f"/tournaments/{closed['id']}/join").status_code == 200
    unknown = other.get("/tournaments/not-a-uuid")
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"


def test_writes_need_the_tournament_scope():
    organiser = make_player("scoped")
    tid = _create(organiser)["id"]
    reader = make_player("reader")
    read_only = token_issue(reader.user, name="read", scopes=["read"])[1]
    reader.client.credentials(HTTP_AUTHORIZATION=f"Token {read_only}")
    assert reader.get(f"/tournaments/{tid}").status_code == 200
    refused = reader.post(f"/tournaments/{tid}/join")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    allowed = token_issue(reader.user, name="cups", scopes=["tournament"])[1]
    reader.client.credentials(HTTP_AUTHORIZATION=f"Token {allowed}")
    assert reader.post(f"/tournaments/{tid}/join").status_code == 200


@pytest.mark.parametrize(
    "name",
    [
        "Open\n001    1      GM Forged Player                  2850",
        "Tab\tcup",
        "Return\rcup",
        "Zero\u200bwidth",
        "Line\u2028separator",
        "Bell\x07cup",
    ],
)
def test_a_tournament_name_with_a_control_character_is_refused(db, name):
    organiser = make_player()
    refused = organiser.post(
        "/tournaments",
        {
            "name": name,
            "game": "gops",
            "options": {"num_cards": 3},
            "format": "round_robin",
            "round_limit_seconds": 86400,
            "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
        },
    )
    assert refused.status_code == 400, refused.content
    body = refused.json()
    assert body["code"] == "validation_error" and list(body["errors"]) == ["name"]
    assert organiser.get("/tournaments").json()["results"] == []


def test_the_csv_export_writes_no_cell_a_spreadsheet_would_evaluate(db):
    """Usernames may begin with ``-`` (``-2-346`` is a formula to a spreadsheet); ratings and
    tie-breaks may be negative: every such cell is prefixed with ``'`` (core/csv_cells.py)."""
    organiser = make_player()
    hostile = [make_player("-2-346"), make_player("-1.0"), make_player("--x")]
    tid = _create(organiser)["id"]
    for player in hostile:
        assert player.post(f"/tournaments/{tid}/join").status_code in (200, 201)
    # An ordinal of -40 reads as a rating of -500 (games/services/rating_scale.py).
    Entry.objects.filter(tournament_id=tid).update(rating=-40.0)
    exported = organiser.get(f"/tournaments/{tid}/export?format=csv")
    assert exported.status_code == 200
    rows = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert sorted(r["player"] for r in rows) == sorted("'" + p.name for p in hostile)
    assert {r["rating"] for r in rows} == {"'-500"}
    for row in rows:
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row.values())
