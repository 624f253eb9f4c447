"""Every option of every game has plain words in the catalogue, and ``GET /games`` hands them
out as JSON Schema annotations that accept exactly what the engine accepts."""

from __future__ import annotations

import jsonschema
import pytest
from django.test import Client

from games.catalog import RECORDS
from games.catalog.option_words import choice_values
from games.catalog.record import GameRecord

pytestmark = pytest.mark.django_db


def _plain(text: str) -> bool:
    return bool(text.strip()) and "_" not in text


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.slug)
def test_every_option_and_choice_has_plain_words(record: GameRecord) -> None:
    properties = record.engine.options_schema["properties"]
    assert set(record.option_words) == set(properties)
    for name, prop in properties.items():
        words = record.option_words[name]
        assert _plain(words.title), name
        assert _plain(words.description)
        values = choice_values(prop)
        assert sorted(map(repr, (c.value for c in words.choices))) == sorted(
            map(repr, values or [])
        ), name
        for choice in words.choices:
            # short enough for a select on a phone; the rest goes in the description
            assert _plain(choice.title) and len(choice.title) <= 30, choice
            assert "_" not in choice.description


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.slug)
def test_the_words_change_no_constraint(record: GameRecord) -> None:
    engine_schema = jsonschema.Draft202012Validator(record.engine.options_schema)
    in_words = jsonschema.Draft202012Validator(record.options_schema())
    for name, prop in record.engine.options_schema["properties"].items():
        for value in [*(choice_values(prop) or []), "nonsense", 0, None, True]:
            options = {name: value}
            assert engine_schema.is_valid(options) == in_words.is_valid(options), options


def test_get_games_shows_titles_and_choices(client: Client) -> None:
    games = {g["slug"]: g for g in client.get("/api/v1/games").json()}
    tie = games["gops"]["options"]["properties"]["tie_rule"]
    assert tie["title"] == "When the highest bids tie"
    assert [c["const"] for c in tie["oneOf"]] == tie["enum"]
    assert all(c["title"] for c in tie["oneOf"])
