"""The OpenAPI schema and the server agree (#46, found by Schemathesis): what the schema allows
is accepted and what the server refuses the schema refuses too — the ``Idempotency-Key``
header's pattern, the ``game`` and ``token`` parameters' types, ``?bots=`` as a boolean, and the
422 of a reused key on every operation that takes one."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from django.urls import Resolver404, resolve
from drf_spectacular.generators import SchemaGenerator

from games.catalog import engines
from tests.players import Player, start_match


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    loaded: dict[str, Any] = json.loads(json.dumps(generated, default=str))
    return loaded


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
    ]


def _parameter(operation: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((p for p in operation.get("parameters", []) if p["name"] == name), None)


def _handler(path: str, method: str) -> Any:
    for filler in ("1", str(uuid.uuid4())):
        try:
            found = resolve(re.sub(r"\{[^}]+\}", filler, path))
        except Resolver404:
            continue
        view = getattr(found.func, "view_class", None) or getattr(found.func, "cls", None)
        return getattr(view, method, None)
    raise AssertionError(f"{path} resolves to no view")


def test_every_operation_that_takes_a_key_declares_it_and_its_422(spec: dict[str, Any]) -> None:
    keyed = 0
    for path, method, operation in _operations(spec):
        takes = bool(getattr(_handler(path, method), "takes_idempotency_key", False))
        header = _parameter(operation, "Idempotency-Key")
        assert takes == (header is not None), (method, path)
        if header is None:
            continue
        keyed += 1
        schema = header["schema"]
        assert (schema["minLength"], schema["maxLength"]) == (1, 255), (method, path)
        assert re.fullmatch(schema["pattern"], "a-Key_0 ~") is not None
        assert "idempotency_key_reused" in operation["responses"]["422"]["description"]
    assert keyed >= 20


@pytest.mark.parametrize("key", ["a", "uuid 1~!", "k" * 255])
def test_a_key_the_pattern_allows_is_taken(alice: Player, bob: Player, key: str) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    answer = alice.move(match_id, 1, {"card": 1}, HTTP_IDEMPOTENCY_KEY=key)
    assert answer.status_code == 202, answer.content


@pytest.mark.parametrize("key", ["", "k" * 256, "tab\tkey", "key\x01", "caf\u00e9", "del\x7f"])
def test_a_key_the_pattern_refuses_is_refused(
    alice: Player, bob: Player, spec: dict[str, Any], key: str
) -> None:
    pattern = spec["paths"]["/api/v1/matches/{match_id}/moves"]["post"]["parameters"]
    declared = next(p for p in pattern if p["name"] == "Idempotency-Key")["schema"]
    assert re.fullmatch(declared["pattern"], key) is None or len(key) > declared["maxLength"]
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    answer = alice.move(match_id, 1, {"card": 1}, HTTP_IDEMPOTENCY_KEY=key)
    assert answer.status_code == 400 and "Idempotency-Key" in answer.json()["errors"]


def test_the_game_parameter_is_one_of_the_games(alice: Player, spec: dict[str, Any]) -> None:
    slugs = sorted(engine.slug for engine in engines())
    for path in ("/api/v1/matches", "/api/v1/seeks", "/api/v1/tournaments"):
        parameter = _parameter(spec["paths"][path]["get"], "game")
        assert parameter is not None and parameter["schema"]["enum"] == slugs, path
        short = path.removeprefix("/api/v1")
        for slug in slugs:
            assert alice.get(f"{short}?game={slug}").status_code == 200, (path, slug)
        refused = alice.get(f"{short}?game=chess")
        assert refused.status_code == 400 and "game" in refused.json()["errors"]


def test_the_token_parameter_is_typed(spec: dict[str, Any]) -> None:
    for path in ("/api/v1/accounts/email/verify", "/api/v1/accounts/notifications/unsubscribe"):
        for operation in spec["paths"][path].values():
            schema = _parameter(operation, "token")["schema"]  # type: ignore[index]
            assert (schema["type"], schema["minLength"], schema["maxLength"]) == ("string", 1, 500)
            assert re.fullmatch(schema["pattern"], "abc:123") is not None
            assert re.fullmatch(schema["pattern"], "a\x00b") is None


@pytest.mark.parametrize("path", ["/games/gops/leaderboard?bots=", "/tournaments?mine="])
def test_an_empty_flag_is_refused_as_the_boolean_it_is_declared(alice: Player, path: str) -> None:
    refused = alice.get(path)
    name = path.rsplit("?", 1)[1].rstrip("=")
    assert refused.status_code == 400 and name in refused.json()["errors"], refused.content
    assert alice.get(path + "true").status_code == 200
