"""Schemathesis over every operation of the published OpenAPI schema, in process against the
WSGI application and the real PostgreSQL test database.

Each operation is fuzzed with schema-valid (positive) and schema-invalid (negative) requests,
authenticated with a player's token, with ``{match_id}`` drawn from real matches of every game
in several states (open, active, finished, aborted; seated or spectating). The run is bounded:
a fixed seed and ``FACEDOWN_FUZZ_EXAMPLES`` examples per operation and mode (default 50).
Every finding is pinned as an ordinary test in tests/api/test_bad_input.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from games.catalog import engines
from tests.players import Player, make_player, play_to_end, start_match

SEED = 20_260_611
EXAMPLES = int(os.environ.get("FACEDOWN_FUZZ_EXAMPLES", "50"))
CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
]


def _spec() -> dict[str, Any]:
    spec = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(spec, default=str))


SPEC = _spec()
SCHEMA = schemathesis.openapi.from_dict(SPEC)
OPERATIONS = sorted((op.ok().method.upper(), op.ok().path) for op in SCHEMA.get_all_operations())


def _has_invalid_inputs(method: str, path: str) -> bool:
    """Whether a negative case exists: a query parameter or a body to get wrong (the path
    parameters are fixed to real ids, and headers only ever carry strings)."""
    operation = SPEC["paths"][path][method.lower()]
    query = [p for p in operation.get("parameters", []) if p["in"] == "query"]
    return bool(query) or "requestBody" in operation


CASES = [
    pytest.param(method, path, mode, id=f"{method} {path} {mode.value}")
    for method, path in OPERATIONS
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if mode is GenerationMode.POSITIVE or _has_invalid_inputs(method, path)
]


@pytest.fixture
def wsgi_app(match_ids: list[str]) -> Iterator[Any]:
    """The WSGI application, run in this thread and inside the test's transaction: like
    Django's test client, it must not close the connection between requests. (After the
    fixtures' own requests: the test client connects the signal again after each one.)"""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def fuzzer(db: None) -> Player:
    return make_player("fuzzer")


@pytest.fixture
def match_ids(fuzzer: Player) -> list[str]:
    """Matches of every game in every state, some seating the fuzzer, some not."""
    bob, carol, dave = make_player("bob"), make_player("carol"), make_player("dave")
    ids = [
        start_match("gops", [fuzzer, bob]),
        start_match("hols-der-geier", [bob, fuzzer, carol]),
        start_match("xato", [fuzzer, bob, carol]),
        start_match("old-men-of-the-forest", [carol, fuzzer, bob]),
        start_match("memory", [bob, carol]),  # the fuzzer is a spectator
        start_match("gops", [fuzzer, bob], protocol="commit-reveal"),
        start_match("gops", [fuzzer, bob], time_control={"per_step_seconds": 60}),
    ]
    opened = fuzzer.create("hols-der-geier", ["me", "open", {"bot": "greedy"}])
    invited = dave.create("gops", ["me", {"user": "fuzzer"}])
    aborted = dave.create("gops", ["me", "open"])
    ids += [opened.json()["id"], invited.json()["id"], aborted.json()["id"]]
    assert dave.post(f"/matches/{aborted.json()['id']}/resign").status_code == 200
    finished = start_match("gops", [fuzzer, carol], options={"num_cards": 3})
    assert play_to_end(finished, [fuzzer, carol])["status"] == "finished"
    return [*ids, finished]


def _strategy(method: str, path: str, mode: GenerationMode, match_ids: list[str]) -> Any:
    operation = SCHEMA[path][method]
    if "{match_id}" in path:
        return st.sampled_from(match_ids).flatmap(
            lambda match_id: operation.as_strategy(mode, path_parameters={"match_id": match_id})
        )
    if "{slug}" in path:
        slugs = [engine.slug for engine in engines()]
        return st.one_of(
            operation.as_strategy(mode),
            st.sampled_from(slugs).flatmap(
                lambda slug: operation.as_strategy(mode, path_parameters={"slug": slug})
            ),
        )
    return operation.as_strategy(mode)


@pytest.mark.slow
@pytest.mark.parametrize(("method", "path", "mode"), CASES)
def test_every_operation_keeps_its_contract(
    method: str,
    path: str,
    mode: GenerationMode,
    wsgi_app: Any,
    fuzzer: Player,
    match_ids: list[str],
) -> None:
    headers = {"Authorization": f"Token {fuzzer.token}"}

    @seed(SEED)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(case=_strategy(method, path, mode, match_ids))
    def fuzz(case: Any) -> None:
        if "Authorization" not in (case.headers or {}):
            case.headers = {**(case.headers or {}), **headers}
        case.call_and_validate(app=wsgi_app, checks=CHECKS)

    fuzz()
