"""CORS: origins listed in FACEDOWN_CORS_ORIGINS may call the API from a browser; others not."""

from __future__ import annotations

import pytest
from corsheaders.conf import conf as cors_conf

ALLOWED = "https://cards.example"


@pytest.fixture
def origins(settings):
    settings.CORS_ALLOWED_ORIGINS = [ALLOWED]
    assert cors_conf.CORS_ALLOWED_ORIGINS == [ALLOWED]


def preflight(client, origin):
    return client.options(
        "/api/v1/matches",
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )


def test_a_preflight_from_an_allowed_origin_is_answered(client, origins):
    answer = preflight(client, ALLOWED)
    assert answer.status_code == 200
    assert answer["Access-Control-Allow-Origin"] == ALLOWED
    assert "POST" in answer["Access-Control-Allow-Methods"]
    allowed = answer["Access-Control-Allow-Headers"].lower()
    assert {"authorization", "idempotency-key", "content-type"} <= set(allowed.split(", "))
    assert "Access-Control-Allow-Credentials" not in answer


def test_a_preflight_from_another_origin_is_refused(client, origins):
    answer = preflight(client, "https://evil.example")
    assert "Access-Control-Allow-Origin" not in answer


def test_an_allowed_origin_reads_the_etag(alice, origins):
    answer = alice.get("/games", HTTP_ORIGIN=ALLOWED)
    assert answer["Access-Control-Allow-Origin"] == ALLOWED
    assert "etag" in answer["Access-Control-Expose-Headers"].lower()
    other = alice.get("/games", HTTP_ORIGIN="https://evil.example")
    assert "Access-Control-Allow-Origin" not in other


def test_by_default_no_origin_is_allowed(client):
    assert "Access-Control-Allow-Origin" not in preflight(client, ALLOWED)
