"""Values that used to slip through: an empty number in the query string, a raw query or path
value holding NUL sent to PostgreSQL (a 500), a JSON body's boolean given as ``1`` or
``"yes"``."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from rest_framework import serializers

from core.serializers import StrictBooleanField, StrictSerializer
from tests.api.test_errors import assert_problem
from tests.players import API, Player, start_match

pytestmark = pytest.mark.django_db

BAD_TEXT = ["%00", "a%00b", quote("é"), "x" * 5000, quote("\u202e"), "%0A"]


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/matches?page_size=", "page_size"),
        ("/games/gops/leaderboard?page_size=", "page_size"),
        ("/matches/{match}/events?after=", "after"),
        ("/matches/{match}/events?wait=", "wait"),
        ("/matches/{match}/chat?after=", "after"),
    ],
)
def test_an_empty_number_is_a_bad_value(alice: Player, bob: Player, path: str, name: str) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    answer = alice.get(path.format(match=match_id))
    assert name in assert_problem(answer, 400, "validation_error")["errors"]


@pytest.mark.parametrize("bad", BAD_TEXT)
def test_a_malformed_player_name_is_not_found(alice: Player, bad: str) -> None:
    alice.client.raise_request_exception = False
    assert_problem(alice.get(f"/players/{bad}"), 404, "not_found")


@pytest.mark.parametrize("value", [0, 1, "yes", "true", "false", 1.0, None, [], {}])
def test_a_preference_is_a_json_boolean_only(alice: Player, value: Any) -> None:
    url = f"{API}/accounts/me/notifications"
    answer = alice.client.patch(url, {"email_your_move": value}, format="json")
    assert "email_your_move" in assert_problem(answer, 400, "validation_error")["errors"]
    assert alice.get("/accounts/me/notifications").json()["email_your_move"] is True
    changed = alice.client.patch(url, {"email_your_move": False}, format="json")
    assert changed.status_code == 200 and changed.json()["email_your_move"] is False


def _input_serializers() -> list[type[serializers.Serializer]]:
    import accounts.serializers
    import games.api.serializers
    import notify.serializers
    import social.api.serializers

    modules = (accounts.serializers, games.api.serializers, notify.serializers)
    found: list[type[serializers.Serializer]] = []
    for module in (*modules, social.api.serializers):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, StrictSerializer):
                found.append(value)
    return found


def test_every_boolean_of_a_request_body_is_strict() -> None:
    """Request bodies go through ``StrictSerializer``s: none may declare DRF's lenient
    ``BooleanField`` (which reads ``1``, ``"yes"``, ``"on"`` as true)."""
    inputs = _input_serializers()
    assert len(inputs) > 10
    lenient = [
        f"{serializer.__name__}.{name}"
        for serializer in inputs
        for name, field in serializer().fields.items()
        if isinstance(field, serializers.BooleanField) and not isinstance(field, StrictBooleanField)
    ]
    assert lenient == []
