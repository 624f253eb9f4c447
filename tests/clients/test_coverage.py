"""The client against the server's own OpenAPI schema (generated in-process by drf-spectacular,
as ``/api/schema/`` serves it): every operation has a client method, except an allow-list with
a reason each; every method names an operation that exists; the hand-written TypedDicts of
``facedown_client.types`` have exactly the fields of the schema's components, so neither can
drift from the other."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from facedown_client import Client, types
from facedown_client.areas import Area, operations_of

METHODS = ("get", "post", "put", "patch", "delete")
PREFIX = "/api/v1"
#: Operations the client leaves out on purpose, each with its reason.
NOT_IN_THE_CLIENT: dict[tuple[str, str], str] = {}
#: Each TypedDict and the schema component it restates.
TYPES = {
    "AccessToken": "AccessTokenCreatedOutput",
    "Account": "MeOutput",
    "BotInfo": "BotOutput",
    "Game": "GameOutput",
    "Seat": "Seat",
    "Phase": "Phase",
    "Result": "Result",
    "Fairness": "Fairness",
    "SeatClock": "SeatClock",
    "Match": "Match",
    "Page": "MatchPage",
    "Receipt": "Receipt",
    "MoveAnswer": "MoveAnswer",
    "EventPage": "EventPage",
    "OldKey": "FairnessOldKey",
    "FairnessKey": "FairnessKey",
    "Challenge": "ChallengeOutput",
    "Challenges": "ChallengeListOutput",
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-any-return]


def _schema_operations(schema: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (method.upper(), path.removeprefix(PREFIX))
        for path, item in schema["paths"].items()
        if path.startswith(PREFIX)
        for method in item
        if method in METHODS
    }


def _client_operations() -> set[tuple[str, str]]:
    client = Client("http://127.0.0.1:1")
    found = operations_of(client)
    for value in vars(client).values():
        if isinstance(value, Area):
            found |= operations_of(value)
    client.close()
    return found


def test_every_operation_of_the_schema_has_a_client_method(schema: dict[str, Any]) -> None:
    operations, covered = _schema_operations(schema), _client_operations()
    assert all(reason.strip() for reason in NOT_IN_THE_CLIENT.values())
    missing = sorted(operations - covered - set(NOT_IN_THE_CLIENT))
    assert not missing, f"{len(missing)} operations have no client method: {missing}"
    assert not sorted(covered - operations), "client methods for operations the schema lacks"
    assert not set(NOT_IN_THE_CLIENT) & covered, "an allowed operation is covered after all"
    assert len(operations) >= 100  # the schema was read whole (103 operations in 12.2026)


def _properties(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return schema["components"]["schemas"][name]["properties"]  # type: ignore[no-any-return]


def _nullable(prop: dict[str, Any]) -> bool:
    return bool(prop.get("nullable")) or any(
        choice.get("nullable") for choice in prop.get("oneOf", [])
    )


@pytest.mark.parametrize(("typed", "component"), sorted(TYPES.items()))
def test_the_types_restate_the_schema(schema: dict[str, Any], typed: str, component: str) -> None:
    hints = typing.get_type_hints(getattr(types, typed))
    properties = _properties(schema, component)
    assert set(hints) == set(properties), (
        f"{typed} vs {component}: only in the client {sorted(set(hints) - set(properties))}, "
        f"only in the schema {sorted(set(properties) - set(hints))}"
    )
    for field, prop in properties.items():
        allows_none = type(None) in typing.get_args(hints[field]) or hints[field] is Any
        if _nullable(prop):
            assert allows_none, f"{typed}.{field} may be null in {component}"
