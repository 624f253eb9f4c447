"""The request id: made or taken from the trusted proxy, sent back, on every log record; the
access log line; the JSON log format."""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import Any

import pytest
from rest_framework.test import APIClient

from observability.logs import JsonFormatter, TextFormatter
from tests.players import Player

MADE = re.compile(r"[0-9a-f]{32}")


def test_each_request_gets_its_own_id(db):
    client = APIClient()
    first, second = client.get("/healthz")["X-Request-ID"], client.get("/healthz")["X-Request-ID"]
    assert MADE.fullmatch(first) and MADE.fullmatch(second) and first != second


def test_a_client_sent_id_is_ignored_without_a_trusted_proxy(db, settings):
    settings.FACEDOWN_TRUSTED_PROXY_HOPS = 0
    answer = APIClient().get("/healthz", HTTP_X_REQUEST_ID="chosen-by-the-client")
    assert MADE.fullmatch(answer["X-Request-ID"])


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("edge-7f3a:0042", True),
        ("0b8f6c1e-3a9d-4c55-9a53-94f1f2d1e6aa", True),
        ("", False),
        ("has space", False),
        ("line\nbreak", False),
        ("<script>", False),
        ("x" * 129, False),
        ("-leading-dash", False),
    ],
)
def test_the_trusted_proxys_id_is_kept_when_well_formed(db, settings, given, kept):
    settings.FACEDOWN_TRUSTED_PROXY_HOPS = 1
    answer = APIClient().get("/healthz", HTTP_X_REQUEST_ID=given)["X-Request-ID"]
    assert (answer == given) is kept
    if not kept:
        assert MADE.fullmatch(answer)


def test_every_record_of_a_request_carries_its_id_and_one_access_line(alice: Player, caplog):
    caplog.set_level(logging.INFO)
    response = alice.get("/matches")
    rid = response["X-Request-ID"]
    mine = [r for r in caplog.records if getattr(r, "request_id", None) == rid]
    (access,) = [r for r in mine if r.name == "facedown.access"]
    assert access.levelno == logging.INFO
    assert access.http_method == "GET" and access.route == "match-list"
    assert access.status == 200 and access.user_id == alice.user.pk
    assert access.duration_ms >= 0
    assert access.getMessage().startswith("GET match-list 200 ")
    # Outside any request, records say so.
    logging.getLogger("facedown.test").warning("between requests")
    assert caplog.records[-1].request_id == "-"


def test_an_anonymous_request_logs_no_user(db, caplog):
    caplog.set_level(logging.INFO, logger="facedown.access")
    APIClient().get("/api/v1/games")
    (access,) = [r for r in caplog.records if r.name == "facedown.access"]
    assert access.user_id is None and access.route == "game-list"


def test_the_json_format_is_one_object_per_line(alice: Player, caplog):
    caplog.set_level(logging.INFO, logger="facedown.access")
    rid = alice.get("/matches")["X-Request-ID"]
    (access,) = [r for r in caplog.records if r.name == "facedown.access"]
    line = JsonFormatter().format(access)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "INFO" and entry["logger"] == "facedown.access"
    assert entry["request_id"] == rid
    assert entry["route"] == "match-list" and entry["status"] == 200
    assert entry["user_id"] == alice.user.pk and entry["http_method"] == "GET"
    assert entry["time"].endswith("+00:00")
    assert f"[{rid}] GET match-list 200" in TextFormatter().format(access)


def test_an_exception_is_one_json_line_too(db):
    try:
        raise ValueError("broken")
    except ValueError:
        record = logging.getLogger("x").makeRecord(
            "x", logging.ERROR, __file__, 1, "failed %s", ("here",), exc_info=sys.exc_info()
        )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["message"] == "failed here"
    assert "ValueError: broken" in entry["exc_info"]


def test_json_lines_write_every_extra_as_the_standard_library_did(db):
    """orjson writes the line; what it would write otherwise goes as ``default=str`` wrote it
    (a date, a dataclass), and what it cannot write (an integer beyond 64 bits) falls back to
    the standard library."""
    import dataclasses
    from datetime import UTC, datetime

    @dataclasses.dataclass
    class Point:
        x: int

    when = datetime(2026, 11, 26, 17, 0, tzinfo=UTC)
    extra = {"when": when, "point": Point(1), "player": "Zoë ☃", "count": 3, "none": None}
    record = logging.getLogger("x").makeRecord(
        "x", logging.INFO, __file__, 1, "m", (), None, extra=extra
    )
    entry = json.loads(JsonFormatter().format(record))
    assert entry["when"] == str(when) and entry["point"] == str(Point(1))
    assert entry["player"] == "Zoë ☃" and entry["count"] == 3 and entry["none"] is None
    huge = logging.getLogger("x").makeRecord(
        "x", logging.INFO, __file__, 1, "m", (), None, extra={"big": 2**70}
    )
    assert json.loads(JsonFormatter().format(huge))["big"] == 2**70


def test_the_asgi_stack_gets_the_same_ids_and_probes(db):
    # The middleware runs natively async under ASGI (no thread hop of its own).
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    async def requests() -> tuple[Any, Any]:
        client = AsyncClient()
        return await client.get("/healthz"), await client.get("/api/v1/games")

    probe, games = async_to_sync(requests)()
    assert probe.status_code == 200 and MADE.fullmatch(probe["X-Request-ID"])
    assert games.status_code == 200 and MADE.fullmatch(games["X-Request-ID"])
    assert games["X-Request-ID"] != probe["X-Request-ID"]
