"""The match routes' bodies are declared once (games/services/bodies.py): the bodies carry
exactly the declared keys, and the OpenAPI schema's components are those declarations."""

from __future__ import annotations

from typing import Any, get_args, get_type_hints

import pytest
from drf_spectacular.generators import SchemaGenerator

from games.api.body_schemas import components
from games.models import Match
from games.services import bodies
from tests.players import Player, start_match

pytestmark = pytest.mark.django_db


def keys(shape: type) -> set[str]:
    return set(get_type_hints(shape))


def required(shape: type) -> set[str]:
    return set(shape.__required_keys__)  # type: ignore[attr-defined]


def test_each_component_is_its_declaration() -> None:
    SchemaGenerator().get_schema(request=None, public=True)  # its hooks leave them as they were
    generated = components()
    for shape in bodies.SHAPES:
        component = generated[shape.__name__]
        assert set(component["properties"]) == keys(shape), shape.__name__
        assert set(component.get("required", [])) == required(shape), shape.__name__
    phase = generated["Phase"]["properties"]
    assert phase["deadline"] == {"type": "string", "format": "date-time", "nullable": True}
    assert "only your own" in phase["submitted"]["description"]
    summary = generated["MatchSummary"]["properties"]
    assert summary["result"] == {
        "allOf": [{"$ref": "#/components/schemas/Result"}],
        "nullable": True,
    }
    assert summary["rematch"]["nullable"] is True and "rematch" in summary["rematch"]["description"]


def test_the_choices_are_the_models() -> None:
    phase_kinds = get_args(get_type_hints(bodies.Phase)["kind"])
    assert set(phase_kinds) == set(Match.PhaseKind.values)
    statuses = get_args(get_type_hints(bodies.MatchSummary)["status"])
    assert set(statuses) == set(Match.Status.values)


def test_the_match_routes_answer_with_the_declared_components() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)

    def body(path: str, method: str, status: str) -> Any:
        answer = schema["paths"][path][method]["responses"][status]
        return answer["content"]["application/json"]["schema"]

    ref = "#/components/schemas/{}".format
    assert body("/api/v1/matches/{match_id}", "get", "200") == {"$ref": ref("Match")}
    assert body("/api/v1/matches", "get", "200") == {"$ref": ref("MatchPage")}
    assert body("/api/v1/matches/{match_id}/moves", "post", "202") == {"$ref": ref("MoveAnswer")}
    assert body("/api/v1/matches/{match_id}/events", "get", "200") == {"$ref": ref("EventPage")}
    # The event page's items are the catalogue's union, one component per event type.
    assert "discriminator" in schema["components"]["schemas"]["Event"]


def test_the_bodies_carry_exactly_the_declared_keys(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    match = alice.match(match_id)
    assert set(match) == keys(bodies.Match)
    assert set(match["phase"]) == keys(bodies.Phase)
    assert set(match["fairness"]) == keys(bodies.Fairness)
    for seat in match["seats"]:
        assert set(seat) == keys(bodies.Seat)
    page = alice.get("/matches").json()
    assert set(page) == keys(bodies.MatchPage)
    assert set(page["results"][0]) == keys(bodies.MatchSummary)

    moved = alice.move(match_id, 1, {"card": 1}).json()
    assert set(moved) == keys(bodies.MoveAnswer)
    assert set(moved["receipt"]) | {"kind"} == keys(bodies.Receipt)
    for step in (1, 2, 3):
        if step > 1:
            alice.move(match_id, step, {"card": step})
        bob.move(match_id, step, {"card": step})
    finished = alice.match(match_id)
    assert finished["status"] == "finished"
    assert set(finished["result"]) == keys(bodies.Result)

    events = alice.events(match_id)
    assert set(events) == keys(bodies.EventPage)
    for event in events["results"]:
        assert set(event) == keys(bodies.Event)
