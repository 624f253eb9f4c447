"""A database that cannot answer is ``503 service_unavailable`` with ``Retry-After``, on the DRF
path and on Django's own 500 path, never a 500 page; the real outage (a PostgreSQL restart under
load) is tests/faults/test_postgres_restart.py."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client

from tests.api.test_errors import assert_problem
from tests.players import Player, start_match

SECRET = "the-sealed-card-is-13"


def _raising(exc: Exception) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return fail


def assert_unavailable(response: Any) -> None:
    body = assert_problem(response, 503, "service_unavailable")
    assert response["Retry-After"].isdigit() and int(response["Retry-After"]) >= 1
    assert SECRET not in response.content.decode()
    assert set(body) == {"type", "title", "status", "detail", "code"}


@pytest.mark.parametrize(
    "exc",
    [
        OperationalError(f"server closed the connection unexpectedly {SECRET}"),
        InterfaceError(f"connection already closed {SECRET}"),
    ],
    ids=["operational", "interface"],
)
def test_a_move_while_the_database_is_away_is_503(
    alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch, exc: Exception
) -> None:
    from games.api import matches

    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    monkeypatch.setattr(matches, "move_submit", _raising(exc))
    assert_unavailable(alice.move(match_id, 1, {"card": 1}))


def test_a_read_while_the_database_is_away_is_503(
    alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.services import reads

    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    down = _raising(OperationalError("the database is down"))
    monkeypatch.setattr(reads, "match_snapshot_read", down)
    assert_unavailable(alice.get(f"/matches/{match_id}"))


def test_the_log_line_names_the_error_not_the_request(
    alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from games.api import matches

    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    down = OperationalError("terminating connection")
    monkeypatch.setattr(matches, "move_submit", _raising(down))
    with caplog.at_level(logging.WARNING, logger="core.problems"):
        assert_unavailable(alice.move(match_id, 1, {"card": 3}))
    [record] = [r for r in caplog.records if r.name == "core.problems"]
    assert "OperationalError" in record.getMessage()
    assert "terminating connection" in record.getMessage()
    assert '"card"' not in record.getMessage()


def test_a_page_outside_drf_while_the_database_is_away_is_503(
    alice: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The browser client's pages are plain Django views: the 503 comes from handler500."""
    from web import views

    monkeypatch.setattr(views, "render", _raising(OperationalError(f"no connection {SECRET}")))
    client = Client(raise_request_exception=False)
    client.force_login(alice.user)
    assert_unavailable(client.get("/"))


def test_other_crashes_stay_500(alice: Player, monkeypatch: pytest.MonkeyPatch) -> None:
    from web import views

    monkeypatch.setattr(views, "render", _raising(RuntimeError("boom")))
    client = Client(raise_request_exception=False)
    client.force_login(alice.user)
    response = client.get("/")
    assert_problem(response, 500, "server_error")
    assert not response.has_header("Retry-After")


def test_the_schema_documents_503_with_retry_after(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert (
        "service_unavailable"
        in schema["components"]["schemas"]["Problem"]["properties"]["code"]["enum"]
    )
    assert "| 503 | `service_unavailable` |" in schema["info"]["description"]
    move = schema["paths"]["/api/v1/matches/{match_id}/moves"]["post"]["responses"]["503"]
    assert "Retry-After" in move["headers"]
