"""The schema guard (tests/conftest.py) fails a test whose response strays from the schema."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.response import Response
from rest_framework.test import APIClient

from games.api import games as games_api
from games.events import CATALOGUE
from games.services import presenters
from tests.players import Player, start_match
from tests.schema_guard import ResponseDrift, session_guard


@pytest.fixture
def match_id(alice: Player, bob: Player) -> str:
    return start_match("gops", [alice, bob])


def _with(patch: dict[str, Any]) -> Any:
    resource = presenters.match_resource

    def match_resource(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**resource(*args, **kwargs), **patch}

    return match_resource


def test_an_undocumented_field_fails(
    alice: Player, match_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(presenters, "match_resource", _with({"secret_deck": [1, 2, 3]}))
    with pytest.raises(ResponseDrift) as drift:
        alice.get(f"/matches/{match_id}")
    message = str(drift.value)
    assert "GET /api/v1/matches/{match_id} answered 200" in message
    assert "'secret_deck' was unexpected" in message


def test_a_mistyped_field_fails(
    alice: Player, match_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(presenters, "match_resource", _with({"version": "7"}))
    with pytest.raises(ResponseDrift, match=r"body\.version: '7' is not of type 'integer'"):
        alice.get(f"/matches/{match_id}")


def test_a_nested_field_in_a_list_is_named(
    alice: Player, match_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(presenters, "match_resource", _with({"seats": [{"index": "zero"}]}))
    with pytest.raises(ResponseDrift, match=r"body\.seats\[0\]"):
        alice.get(f"/matches/{match_id}")


def test_a_declared_format_is_enforced(
    alice: Player, match_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(presenters, "match_resource", _with({"created_at": "yesterday"}))
    with pytest.raises(ResponseDrift, match=r"body\.created_at: 'yesterday' is not a 'date-time'"):
        alice.get(f"/matches/{match_id}")


def test_an_undocumented_status_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def teapot(self: Any, request: Any) -> Response:
        return Response({"tea": True}, status=418)

    monkeypatch.setattr(games_api.GameListApi, "get", teapot)
    with pytest.raises(ResponseDrift, match=r"GET /api/v1/games answered 418: status not"):
        APIClient().get("/api/v1/games")


def test_an_error_body_must_be_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    def bare_404(self: Any, request: Any, slug: str) -> Response:
        return Response({"error": "nope"}, status=404, content_type="application/problem+json")

    monkeypatch.setattr(games_api.GameDetailApi, "get", bare_404)
    with pytest.raises(ResponseDrift, match=r"GET /api/v1/games/\{slug\} answered 404: body"):
        APIClient().get("/api/v1/games/gops")


def test_an_undocumented_content_type_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def problem_as_json(self: Any, request: Any, slug: str) -> Response:
        return Response({"detail": "Not found."}, status=404)

    monkeypatch.setattr(games_api.GameDetailApi, "get", problem_as_json)
    with pytest.raises(ResponseDrift, match=r"content type 'application/json' not documented"):
        APIClient().get("/api/v1/games/gops")


def test_paths_outside_the_schema_are_not_checked(db: None) -> None:
    assert session_guard().template("/admin/login/") is None
    assert APIClient().get("/admin/login/").status_code == 200


def test_the_guard_checks_against_the_served_schema(db: None) -> None:
    served = APIClient().get("/api/schema/", {"format": "json"})
    assert served.status_code == 200
    assert served.json() == session_guard().spec


def _events_with(change: dict[str, Any]) -> Any:
    events_for_viewer = presenters.events_for_viewer

    def patched(*args: Any, **kwargs: Any) -> tuple[list[dict[str, Any]], bool]:
        rows, more = events_for_viewer(*args, **kwargs)
        return [{**row, **change} if row["type"] == "match_started" else row for row in rows], more

    return patched


def test_event_data_follows_the_catalogue(
    alice: Player, match_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert alice.events(match_id)["results"][0]["type"] == "match_created"
    monkeypatch.setattr(presenters, "events_for_viewer", _events_with({"data": {"seats": "all"}}))
    with pytest.raises(ResponseDrift, match="events"):
        alice.events(match_id)


def test_an_event_type_outside_the_catalogue_fails(
    alice: Player, match_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(presenters, "events_for_viewer", _events_with({"type": "seat_danced"}))
    with pytest.raises(ResponseDrift):
        alice.events(match_id)


def test_the_published_schema_documents_every_event_type() -> None:
    schema = APIClient().get("/api/schema/?format=json").json()
    union = schema["components"]["schemas"]["Event"]
    assert sorted(union["discriminator"]["mapping"]) == sorted(CATALOGUE)
    forfeited = schema["components"]["schemas"]["EventSeatForfeited"]
    assert forfeited["properties"]["data"]["properties"]["reason"]["enum"] == [
        "resigned",
        "timeout",
        "illegal_reveal",
    ]
    assert forfeited["description"].startswith("A seat forfeited")
    aborted = schema["components"]["schemas"]["EventMatchAborted"]["properties"]["data"]
    assert aborted["properties"]["seat"] == {"type": "integer", "nullable": True}
