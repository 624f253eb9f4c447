"""Error reports through Sentry's SDK leak no move: a move that fails inside the service is
reported (to an in-process transport, the SDK's own extension point) without its card, and
the card reaches neither the logs nor any metric label."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
import sentry_sdk
from rest_framework.test import APIClient
from sentry_sdk.envelope import Envelope
from sentry_sdk.transport import Transport

from games.services import moves as move_service
from observability.sentry import FILTERED, scrub, sentry_init
from tests.observability.scrape import TOKEN, scrape
from tests.players import Player, start_match

DSN = "https://public@sentry.invalid/1"


class Captured(Transport):
    """Keeps every envelope the SDK would send, in this process."""

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        self.envelopes: list[Envelope] = []

    def capture_envelope(self, envelope: Envelope) -> None:
        self.envelopes.append(envelope)

    def events(self) -> list[dict[str, Any]]:
        return [
            item.payload.json
            for envelope in self.envelopes
            for item in envelope.items
            if item.type == "event" and item.payload.json is not None
        ]


@pytest.fixture
def reports() -> Iterator[Any]:
    """``reports(**init)`` starts the SDK with a capturing transport; off again afterwards."""

    def start(configured: bool = True) -> Captured:
        transport = Captured()
        if configured:
            sentry_init(DSN, transport=transport)
            assert not sentry_sdk.get_client().should_send_default_pii()
        else:  # the SDK as it would be without the project's settings
            sentry_sdk.init(dsn=DSN, include_local_variables=True, transport=transport)
        return transport

    yield start
    sentry_sdk.get_client().close()
    sentry_sdk.get_global_scope().set_client(None)  # back to no client at all


def _card_pattern(card: int) -> re.Pattern[str]:
    # The card as any serialisation would show it: {"card": 7}, {'card': 7}, card=7.
    return re.compile(rf"""card['"]?\s*[:=]\s*['"]?{card}\b""")


def _failing_move(alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Any]:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 13})
    card = alice.match(match_id)["legal_moves"][-1]["card"]

    def signing_fails(**_: Any) -> Any:
        raise RuntimeError("the receipt could not be signed")

    monkeypatch.setattr(move_service, "receipt_make", signing_fails)
    alice.client.raise_request_exception = False
    response = alice.move(match_id, 1, {"card": card})
    return card, response


def test_a_failing_move_is_reported_without_its_card(
    alice: Player, bob: Player, monkeypatch, caplog, reports, settings
):
    settings.FACEDOWN_METRICS_TOKEN = TOKEN
    caplog.set_level(logging.DEBUG)
    captured = reports()
    card, response = _failing_move(alice, bob, monkeypatch)
    sentry_sdk.flush()
    assert response.status_code == 500
    assert response.json()["code"] == "server_error"

    (event,) = captured.events()
    (exception,) = event["exception"]["values"]
    assert exception["type"] == "RuntimeError"
    frames = exception["stacktrace"]["frames"]
    assert any(frame["function"] == "move_record" for frame in frames)  # it is the move path
    assert not any("vars" in frame for frame in frames)
    assert set(event["request"]) <= {"method", "url", "headers"}
    assert "Authorization" not in event["request"]["headers"]
    sent = b"".join(envelope.serialize() for envelope in captured.envelopes).decode()
    assert not _card_pattern(card).search(sent)
    assert alice.token not in sent

    logged = "\n".join(logging.Formatter().format(record) for record in caplog.records)
    assert "the receipt could not be signed" in logged  # the failure itself is logged
    assert not _card_pattern(card).search(logged)

    labels = {
        f"{key}={label}"
        for (name, sample_labels) in scrape(APIClient())
        if name.startswith("facedown_")
        for key, label in sample_labels
    }
    assert "route=match-moves" in labels
    assert not any("card" in label or label.endswith(f"={card}") for label in labels)


def test_without_the_settings_the_same_report_would_carry_the_card(
    alice: Player, bob: Player, monkeypatch, reports
):
    # The check above has teeth: the SDK's defaults with local variables send the card.
    captured = reports(configured=False)
    card, response = _failing_move(alice, bob, monkeypatch)
    sentry_sdk.flush()
    assert response.status_code == 500
    sent = b"".join(envelope.serialize() for envelope in captured.envelopes).decode()
    assert _card_pattern(card).search(sent)


def test_the_scrubber_drops_request_data_and_hidden_keys():
    event = {
        "request": {
            "method": "POST",
            "url": "https://facedown.example/api/v1/matches/x/moves?card=3",
            "data": {"step": 1, "move": {"card": 3}},
            "cookies": {"sessionid": "s"},
            "headers": {"Authorization": "Token t", "User-Agent": "ua", "Cookie": "c"},
            "query_string": "card=3",
        },
        "logentry": {"message": "bad %s", "params": [{"card": 3}], "formatted": "bad"},
        "extra": {"celery-job": {"args": ["m", 1], "kwargs": {"move": {"card": 3}}}},
        "contexts": {"trace": {"trace_id": "t"}, "game": {"salt": "s", "client_seed": "c"}},
        "breadcrumbs": {
            "values": [
                {"category": "query", "message": "INSERT ... %s", "data": {"params": ["3"]}},
                {"category": "log", "message": "ok", "data": {"bid": 4, "step": 2}},
            ]
        },
        "exception": {
            "values": [
                {"type": "E", "value": "v", "stacktrace": {"frames": [{"vars": {"move": 1}}]}}
            ]
        },
    }
    scrubbed = scrub(json.loads(json.dumps(event)), {})
    assert scrubbed["request"] == {
        "method": "POST",
        "url": "https://facedown.example/api/v1/matches/x/moves",
        "headers": {"User-Agent": "ua"},
    }
    assert "params" not in scrubbed["logentry"]
    assert "extra" not in scrubbed
    assert scrubbed["contexts"]["game"] == {"salt": FILTERED, "client_seed": FILTERED}
    assert scrubbed["contexts"]["trace"] == {"trace_id": "t"}
    assert scrubbed["breadcrumbs"]["values"] == [
        {"category": "log", "message": "ok", "data": {"bid": FILTERED, "step": 2}}
    ]
    assert scrubbed["exception"]["values"][0] == {
        "type": "E",
        "value": "v",
        "stacktrace": {"frames": [{}]},
    }


def test_error_reports_are_off_by_default(settings):
    # The test settings, like every deployment without SENTRY_DSN, start no SDK client (and the
    # app imports the SDK only when the DSN is set: observability/apps.py).
    assert settings.SENTRY_DSN == ""
    assert not sentry_sdk.get_client().is_active()


def test_a_failing_move_is_reported_with_its_request_and_without_its_card(
    alice: Player, bob: Player, monkeypatch, reports
):
    """A move through the deployed WSGI application (Django's handler, which Sentry's Django
    integration wraps) is reported with its route and request, never its card or token."""
    from config.wsgi import application
    from tests.wsgi_calls import wsgi

    captured = reports()
    match_id = start_match("gops", [alice, bob], options={"num_cards": 13})
    card = alice.match(match_id)["legal_moves"][-1]["card"]

    def signing_fails(**_: Any) -> Any:
        raise RuntimeError("the receipt could not be signed")

    monkeypatch.setattr(move_service, "receipt_make", signing_fails)
    body = json.dumps({"step": 1, "move": {"card": card}}).encode()
    answer = wsgi(application, f"/api/v1/matches/{match_id}/moves", token=alice.token, body=body)
    sentry_sdk.flush()
    assert answer.status == 500

    (event,) = captured.events()
    assert event["exception"]["values"][0]["type"] == "RuntimeError"
    assert event["request"]["url"].endswith(f"/api/v1/matches/{match_id}/moves")
    assert event["transaction"] == "/api/v1/matches/{match_id}/moves"
    assert set(event["request"]) <= {"method", "url", "headers"}
    sent = b"".join(envelope.serialize() for envelope in captured.envelopes).decode()
    assert not _card_pattern(card).search(sent)
    assert alice.token not in sent
