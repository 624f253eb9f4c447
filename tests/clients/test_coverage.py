"""The client against the server's own OpenAPI schema (generated in-process by drf-spectacular,
as ``/api/schema/`` serves it): every operation has a client method, except an allow-list with
a reason each; every method names an operation that exists; the hand-written TypedDicts of
``facedown_client.types`` have exactly the fields of the schema's components, so neither can
drift from the other."""

from __future__ import annotations

import contextlib
import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from drf_spectacular.generators import SchemaGenerator
from facedown_client import ApiError, Client, types
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
    "LadderEntry": "LadderEntryOutput",
    "LadderPair": "LadderPairOutput",
    "LadderMatch": "LadderMatchOutput",
    "LadderFailure": "LadderFailureOutput",
    "LadderVerification": "LadderVerificationOutput",
    "Ladder": "LadderOutput",
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
    assert len(operations) >= 100  # the schema was read whole (106 operations in 12.2026)


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


class Recording(httpx.HTTPTransport):
    """Sends every request to the live server and notes its method and path."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, str]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.path.removeprefix(PREFIX)))
        return super().handle_request(request)


NOWHERE = "00000000-0000-0000-0000-000000000000"
#: An argument for each parameter name of the area methods (the answers may be refusals).
ARGUMENTS: dict[str, Any] = {
    "match_id": NOWHERE, "challenge_id": NOWHERE, "tournament_id": NOWHERE, "seek_id": NOWHERE,
    "series_id": NOWHERE, "token_id": 999999, "webhook_id": 999999, "subscription_id": 999999,
    "offer_id": 999999, "proposal_id": 999999, "sanction_id": 999999, "seq": 999999,
    "seat": 0, "step": 1,
    "slug": "gops", "game": "gops", "username": "nobody-here", "player": "nobody-here",
    "name": "coverage", "text": "hello", "reason": "spam", "kind": "draw", "url": "https://x.invalid",
    "email": "nobody@x.invalid", "current_password": "wrong", "password": "wrong",
    "until": "2000-01-01T00:00:00Z", "seats": [], "pairings": [], "rules": [], "streams": [],
    "scopes": ["read"], "matches": 1, "move": {"card": 1}, "salt": "0" * 64,
}  # fmt: skip
#: Methods that would end the test's account or token before the others ran: called last.
LAST = {"close", "become_bot", "rotate", "change_password", "logout"}


def _route(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$")


def test_each_method_sends_the_operation_it_names(
    registered: Callable[[], Client], server: str, transactional_db: None
) -> None:
    """Every marked method, called against the live server, sends its own operation (the
    server may refuse it: made-up ids and values)."""
    recording = Recording()
    client = Client(server, registered().token, transport=recording, retries=0)
    areas = [client, *(v for v in vars(client).values() if isinstance(v, Area))]
    methods = [
        (area, name, getattr(area, name))
        for area in areas
        for name in dir(type(area))
        if getattr(getattr(type(area), name), "__facedown_operations__", None)
        and name not in ("register", "login")  # the credentials tests call these
    ]
    methods.sort(key=lambda entry: entry[1] in LAST)
    for area, name, method in methods:
        ((verb, template),) = getattr(type(area), name).__facedown_operations__
        wanted = {
            p.name: ARGUMENTS[p.name]
            for p in inspect.signature(method).parameters.values()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
            and (p.default is p.empty or p.name == "step")
        }
        recording.sent.clear()
        with contextlib.suppress(ApiError):
            answer = method(**wanted)
            if inspect.isgenerator(answer):
                with contextlib.suppress(ApiError, httpx.TransportError):
                    next(answer)
                answer.close()
        assert recording.sent, f"{type(area).__name__}.{name} sent nothing"
        sent_verb, sent_path = recording.sent[-1]
        assert sent_verb == verb and _route(template).match(sent_path), (
            f"{type(area).__name__}.{name} sent {sent_verb} {sent_path}, not {verb} {template}"
        )
