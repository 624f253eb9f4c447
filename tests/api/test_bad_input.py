"""Bad input of every kind answers a 4xx problem+json with a stable code and changes nothing
(docs/api.md, "Strict input"). Each schema-fuzzer finding is pinned here as well."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import pytest
from django.db import DatabaseError
from rest_framework.test import APIClient

from accounts.models import User
from games.models import IdempotencyRecord
from tests.api.test_errors import assert_problem, database
from tests.players import API, Player, start_match


@contextmanager
def unchanged() -> Iterator[None]:
    before = database(), list(User.objects.order_by("id").values("id", "username"))
    yield
    assert (database(), list(User.objects.order_by("id").values("id", "username"))) == before


def post_raw(player: Player | None, path: str, raw: str | bytes, **headers: Any) -> Any:
    client = player.client if player is not None else APIClient()
    return client.post(API + path, data=raw, content_type="application/json", **headers)


@pytest.fixture
def gops(alice: Player, bob: Player) -> str:
    return start_match("gops", [alice, bob], options={"num_cards": 5})


# -- Size and depth ------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_413_before_it_is_read(alice: Player, settings: Any):
    settings.FACEDOWN_MAX_BODY_BYTES = 1024
    body = json.dumps({"game": "gops", "seats": ["me", "open"], "options": {"x": "a" * 2000}})
    with unchanged():
        assert_problem(post_raw(alice, "/matches", body), 413, "payload_too_large")
        assert_problem(post_raw(None, "/accounts/register", body), 413, "payload_too_large")


def test_the_default_limit_is_64_kib(alice: Player):
    body = json.dumps({"game": "gops", "seats": ["me", "open"], "options": {"x": "a" * 70_000}})
    with unchanged():
        assert_problem(post_raw(alice, "/matches", body), 413, "payload_too_large")


def test_a_body_without_content_length_is_cut_at_the_limit(settings: Any):
    """A chunked or lying client: the parser reads at most limit + 1 bytes."""
    import io

    from core.errors import PayloadTooLarge
    from core.input import JSONParser

    settings.FACEDOWN_MAX_BODY_BYTES = 100
    with pytest.raises(PayloadTooLarge):
        JSONParser().parse(io.BytesIO(b'{"a": "' + b"b" * 500 + b'"}'), None, {})


@pytest.mark.parametrize("depth", [33, 100, 20_000])
def test_json_nested_too_deep_is_a_parse_error(alice: Player, gops: str, depth: int):
    body = '{"step": 1, "move": {"card": ' + "[" * depth + "]" * depth + "}}"
    with unchanged():
        assert_problem(post_raw(alice, f"/matches/{gops}/moves", body), 400, "parse_error")


def test_json_at_the_depth_limit_is_parsed(alice: Player, gops: str):
    # 32 levels: the envelope, "move", then 30 lists; the engine refuses the card itself.
    body = '{"step": 1, "move": {"card": ' + "[" * 30 + "]" * 30 + "}}"
    with unchanged():
        assert_problem(post_raw(alice, f"/matches/{gops}/moves", body), 400, "illegal_move")


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_are_a_parse_error(alice: Player, gops: str, number: str):
    body = '{"step": 1, "move": {"card": ' + number + "}}"
    with unchanged():
        assert_problem(post_raw(alice, f"/matches/{gops}/moves", body), 400, "parse_error")


# -- Control characters ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "go\u0000ps", "seats": ["me", "open"]}, "game"),
        ({"game": "gops", "seats": ["me", {"user": "bo\u0000b"}]}, "seats.1.user"),
        (
            {"game": "gops", "seats": ["me", "open"], "options": {"tie_rule": "\u0000"}},
            "options.tie_rule",
        ),
        ({"game": "gops", "seats": ["me", "open"], "options": {"x\u0000": 1}}, "options"),
        (
            {"game": "gops", "seats": ["me", "open"], "time_control": {"on_timeout": "\u001b"}},
            "time_control.on_timeout",
        ),
        ({"game": "gops", "seats": ["me", "open"], "options": {"x": "\u0085"}}, "options.x"),
    ],
)
def test_control_characters_in_a_body_are_refused(alice: Player, body: Any, field: str):
    with unchanged():
        problem = assert_problem(alice.post("/matches", body), 400, "validation_error")
    assert field in problem["errors"]


def test_nul_in_a_move_never_reaches_the_database(alice: Player, gops: str):
    with unchanged():
        answer = alice.post(f"/matches/{gops}/moves", {"step": 1, "move": {"card\u0000": 1}})
        assert_problem(answer, 400, "validation_error")
        answer = alice.post(f"/matches/{gops}/join", {"client_seed": "a\u0000b"})
        assert_problem(answer, 400, "validation_error")


def test_nul_in_register_and_token_is_refused(db: None):
    client = APIClient()
    with unchanged():
        for path, body in [
            ("/accounts/register", {"username": "dave", "password": "pass\u0000word-long"}),
            ("/accounts/token", {"username": "da\u0000ve", "password": "whatever-long"}),
        ]:
            answer = client.post(API + path, body, format="json")
            assert_problem(answer, 400, "validation_error")


def test_a_control_character_in_an_idempotency_key_is_refused(alice: Player, gops: str):
    with unchanged():
        answer = alice.move(gops, 1, {"card": 1}, HTTP_IDEMPOTENCY_KEY="key\x01")
        problem = assert_problem(answer, 400, "validation_error")
    assert "Idempotency-Key" in problem["errors"]
    assert not IdempotencyRecord.objects.exists()


# -- Types ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("step", ["1", 1.0, True, 2**31, -1, 0, None, "\u0663"])
def test_a_step_must_be_a_json_integer_in_range(alice: Player, gops: str, step: Any):
    with unchanged():
        problem = assert_problem(
            alice.post(f"/matches/{gops}/moves", {"step": step, "move": {"card": 1}}),
            400,
            "validation_error",
        )
    assert "step" in problem["errors"]


@pytest.mark.parametrize("seat", ["1", True, 1.0, 16, -1])
def test_a_join_seat_must_be_a_json_integer(alice: Player, bob: Player, seat: Any):
    created = alice.create("gops", ["me", "open"]).json()["id"]
    with unchanged():
        answer = bob.post(f"/matches/{created}/join", {"seat": seat})
        assert "seat" in assert_problem(answer, 400, "validation_error")["errors"]


@pytest.mark.parametrize("field", ["disclose_submitted", "ready"])
@pytest.mark.parametrize("value", ["true", "yes", 1, 0])
def test_flags_must_be_json_booleans(alice: Player, field: str, value: Any):
    with unchanged():
        answer = alice.create("gops", ["me", "open"], **{field: value})
        assert field in assert_problem(answer, 400, "validation_error")["errors"]


def test_a_game_must_be_a_json_string(alice: Player):
    with unchanged():
        answer = alice.post("/matches", {"game": 5, "seats": ["me", "open"]})
        assert "game" in assert_problem(answer, 400, "validation_error")["errors"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/accounts/register", {"username": "dave", "password": "long-enough-pw", "admin": True}),
        ("/accounts/token", {"username": "alice", "password": "correct-horse-battery", "x": 1}),
        ("/accounts/register", {"username": 12345, "password": "long-enough-pw"}),
        ("/accounts/token", {"username": "alice", "password": 5}),
    ],
)
def test_register_and_token_refuse_unknown_fields_and_wrong_types(
    alice: Player, path: str, body: Any
):
    with unchanged():
        assert_problem(APIClient().post(API + path, body, format="json"), 400, "validation_error")


# -- Query parameters -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("status=AAA", "status"),
        ("status=Active", "status"),
        ("mine=1", "mine"),
        ("mine=yes", "mine"),
        ("awaiting_me=TRUE", "awaiting_me"),
        ("invited=1", "invited"),
        ("game=chess", "game"),
        ("game=" + quote("go\x00ps"), "game"),
        ("page_size=0", "page_size"),
        ("page_size=201", "page_size"),
        ("page_size=" + quote("\u0663"), "page_size"),
        ("page_size=" + quote("\uff13"), "page_size"),
        ("page_size=1.0", "page_size"),
    ],
)
def test_a_bad_list_parameter_value_is_refused(alice: Player, query: str, name: str):
    problem = assert_problem(alice.get(f"/matches?{query}"), 400, "validation_error")
    assert name in problem["errors"]


def test_unknown_parameter_names_are_ignored(alice: Player, gops: str):
    answer = alice.get("/matches?_=1712345678&status=active&mine=true&page_size=2&utm=x")
    assert answer.status_code == 200
    assert [m["id"] for m in answer.json()["results"]] == [gops]


@pytest.mark.parametrize(
    "cursor",
    [
        "not-base64!",
        base64.b64encode(b"o=0&r=0&p=not-a-date").decode(),
        base64.b64encode(b"o=0&r=0&p=2024-01-01 00:00:00").decode(),  # naive
        base64.b64encode(b"o=0&r=0&p=2024-13-45T00:00:00Z").decode(),
        base64.b64encode("o=0&r=0&p=\u0662\u0660\u0662\u0664-01-01T00:00:00Z".encode()).decode(),
        base64.b64encode(b"o=%D9%A3&r=0").decode(),
    ],
)
def test_a_forged_cursor_is_not_found(alice: Player, gops: str, cursor: str):
    assert_problem(alice.get(f"/matches?cursor={quote(cursor)}"), 404, "not_found")


def test_a_cursor_from_next_still_pages(alice: Player, bob: Player):
    for _ in range(3):
        alice.create("gops", ["me", "open"])
    first = alice.get("/matches?page_size=2").json()
    assert len(first["results"]) == 2 and first["next"]
    second = alice.client.get(first["next"])
    assert second.status_code == 200 and len(second.json()["results"]) == 1


@pytest.mark.parametrize(
    "after", ["-1", "x", "\u00b2", "\u0663", "\uff13", "1.0", "9" * 19, str(2**31)]
)
def test_a_bad_events_after_is_refused(alice: Player, gops: str, after: str):
    problem = assert_problem(
        alice.get(f"/matches/{gops}/events?after={quote(after)}"), 400, "validation_error"
    )
    assert "after" in problem["errors"]


@pytest.mark.parametrize(
    "match_id",
    [
        "-".join("\u0661" * n for n in (8, 4, 4, 4, 12)),
        "urn:uuid:12345678-1234-1234-1234-123456789abc",
        "12345678123412341234123456789abc",
        "12345678-1234-1234-1234-123456789ABC",
    ],
)
def test_only_lowercase_hyphenated_ascii_ids_name_a_match(alice: Player, match_id: str):
    assert_problem(alice.get(f"/matches/{quote(match_id)}"), 404, "not_found")


# -- Idempotency keys held through a failure ------------------------------------------------------


def test_a_key_whose_answer_could_not_be_stored_is_released(
    alice: Player, gops: str, monkeypatch: pytest.MonkeyPatch
):
    """The move is refused (illegal); storing that answer fails; the key must not stay held."""

    def unavailable(self: Any, *args: Any, **kwargs: Any) -> None:
        raise DatabaseError("the database went away while storing the answer")

    monkeypatch.setattr(IdempotencyRecord, "save", unavailable)
    with pytest.raises(DatabaseError):
        alice.move(gops, 1, {"card": 99}, HTTP_IDEMPOTENCY_KEY="held")
    assert not IdempotencyRecord.objects.filter(key="held").exists()
    monkeypatch.undo()
    retry = alice.move(gops, 1, {"card": 1}, HTTP_IDEMPOTENCY_KEY="held")
    assert retry.status_code == 202, retry.content
