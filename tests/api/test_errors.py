"""Every bad input named in docs/api.md and the games' rules: the documented status and code, as
problem+json, with the database unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.models import Match, MatchEvent, Move, Seat
from tests.players import API, Player, start_match

PROBLEM = "application/problem+json"


def database() -> list[Any]:
    """Everything a refused request must leave as it was."""
    return [
        list(Match.objects.order_by("id").values()),
        list(Seat.objects.order_by("id").values()),
        list(Move.objects.order_by("id").values()),
        list(MatchEvent.objects.order_by("id").values()),
    ]


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith(PROBLEM)
    body = response.json()
    assert body["code"] == code and body["status"] == status
    assert {"type", "title", "detail"} <= set(body)
    return body


@pytest.fixture
def unchanged(db):
    """Use as ``with unchanged():`` around a refused request."""
    from contextlib import contextmanager

    @contextmanager
    def check():
        before = database()
        yield
        assert database() == before

    return check


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "chess", "seats": ["me", "open"]}, "game"),
        ({"game": "gops", "seats": ["me"]}, "seats"),
        ({"game": "gops", "seats": ["me", "open", "open", "open"]}, "seats"),
        ({"game": "hols-der-geier", "seats": ["me"] + ["open"] * 5}, "seats"),
        (
            {"game": "gops", "seats": ["me", "open"], "options": {"tie_rule": "coin"}},
            "options.tie_rule",
        ),
        (
            {"game": "gops", "seats": ["me", "open"], "options": {"num_cards": 2}},
            "options.num_cards",
        ),
        ({"game": "gops", "seats": ["me", "open"], "options": {"jokers": True}}, "options"),
        (
            {
                "game": "hols-der-geier",
                "seats": ["me", "open", "open"],
                "options": {"two_player_variant": True},
            },
            "options.two_player_variant",
        ),
        (
            {"game": "hols-der-geier", "seats": ["me", "open"], "options": {"deals": 6}},
            "options.deals",
        ),
        ({"game": "gops", "seats": ["me", "someone"]}, "seats.1"),
        ({"game": "gops", "seats": ["me", {"user": "nobody-here"}]}, "seats.1.user"),
        ({"game": "gops", "seats": ["me", "open"], "client_seed": "abc"}, "client_seed"),
        ({"game": "gops", "seats": ["me", "open"], "protocol": "smoke-signals"}, "protocol"),
        ({"game": "gops", "seats": ["me", "open"], "colour": "red"}, "colour"),
        ({"seats": ["me", "open"]}, "game"),
    ],
)
def test_create_validation_errors(alice, unchanged, body, field):
    with unchanged():
        problem = assert_problem(alice.post("/matches", body), 400, "validation_error")
    assert any(key == field or key.startswith(field + ".") for key in problem["errors"]), problem


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"time_control": {"per_step_seconds": 0}}, "time_control.per_step_seconds"),
        ({"time_control": {"per_step_seconds": 1209601}}, "time_control.per_step_seconds"),
        ({"time_control": {"per_step_seconds": "60"}}, "time_control.per_step_seconds"),
        (
            {"time_control": {"per_step_seconds": 60, "on_timeout": "pass"}},
            "time_control.on_timeout",
        ),
        (
            {"time_control": {"per_step_seconds": 60, "auto_move_bot": "genius"}},
            "time_control.auto_move_bot",
        ),
        ({"time_control": {"per_step_seconds": 60, "grace": 5}}, "time_control.grace"),
        ({"time_control": 60}, "time_control"),
        ({"seats": ["me", {"bot": "genius"}]}, "seats.1.bot"),
        ({"seats": ["me", {"bot": "random", "options": {"depth": 3}}]}, "seats.1.options"),
        ({"seats": ["me", {"bot": 7}]}, "seats.1"),
    ],
)
def test_time_control_and_bot_errors(alice, unchanged, extra, field):
    body = {"game": "gops", "seats": ["me", "open"], **extra}
    with unchanged():
        problem = assert_problem(alice.post("/matches", body), 400, "validation_error")
    assert any(key == field or key.startswith(field + ".") for key in problem["errors"]), problem


def test_same_user_twice_is_already_seated(alice, bob, unchanged):
    with unchanged():
        assert_problem(alice.create("gops", ["me", {"user": "alice"}]), 409, "already_seated")
        assert_problem(
            alice.create("gops", [{"user": "bob"}, {"user": "bob"}]), 409, "already_seated"
        )


@pytest.fixture
def started(alice, bob):
    return start_match("gops", [alice, bob], options={"num_cards": 5})


def test_card_not_in_hand_and_spent_card_are_illegal(alice, bob, started, unchanged):
    with unchanged():
        assert_problem(alice.move(started, 1, {"card": 9}), 400, "illegal_move")
        assert_problem(alice.move(started, 1, {"card": "3"}), 400, "illegal_move")
        assert_problem(alice.move(started, 1, {"bid": 3}), 400, "illegal_move")
    alice.move(started, 1, {"card": 3})
    bob.move(started, 1, {"card": 2})
    with unchanged():
        problem = assert_problem(alice.move(started, 2, {"card": 3}), 400, "illegal_move")
    assert "3" in problem["detail"]


def test_second_different_move_is_already_submitted(alice, started, unchanged):
    alice.move(started, 1, {"card": 3})
    with unchanged():
        assert_problem(alice.move(started, 1, {"card": 4}), 409, "already_submitted")


def test_stale_and_future_steps(alice, bob, carol, started, unchanged):
    alice.move(started, 1, {"card": 3})
    bob.move(started, 1, {"card": 2})
    with unchanged():
        problem = assert_problem(alice.move(started, 1, {"card": 4}), 409, "stale_step")
        assert problem["recorded"] is True
        assert_problem(alice.move(started, 5, {"card": 4}), 409, "wrong_phase")
        # precedence: not_seated before stale_step
        assert_problem(carol.move(started, 1, {"card": 4}), 403, "not_seated")


def test_stale_step_and_not_active_after_the_match_ended(alice, bob, started, unchanged):
    alice.move(started, 1, {"card": 1})
    bob.move(started, 1, {"card": 2})
    bob.post(f"/matches/{started}/resign")
    with unchanged():
        # step 1 resolved before the end: still stale_step, with the requester's own record
        problem = assert_problem(alice.move(started, 1, {"card": 1}), 409, "stale_step")
        assert problem["recorded"] is True
        problem = assert_problem(alice.move(started, 2, {"card": 3}), 409, "match_not_active")
    assert "finished" in problem["detail"]


def test_stale_step_reports_recorded_false_for_a_seat_that_never_moved(
    alice, bob, carol, unchanged
):
    match_id = start_match("gops", [alice, bob, carol], options={"num_cards": 4})
    alice.move(match_id, 1, {"card": 1})
    bob.move(match_id, 1, {"card": 2})
    carol.post(f"/matches/{match_id}/resign")  # her timeout move resolves step 1
    with unchanged():
        problem = assert_problem(carol.move(match_id, 1, {"card": 3}), 409, "stale_step")
    assert problem["recorded"] is False


def test_not_seated_and_match_not_active(alice, bob, carol, started, unchanged):
    waiting = alice.create("gops", ["me", "open"]).json()["id"]
    with unchanged():
        assert_problem(carol.move(started, 1, {"card": 1}), 403, "not_seated")
        assert_problem(alice.move(waiting, 1, {"card": 1}), 409, "match_not_active")
        assert_problem(carol.post(f"/matches/{started}/resign"), 403, "not_seated")
        assert_problem(carol.post(f"/matches/{started}/decline"), 403, "not_seated")


def test_commitment_on_a_sealed_match_and_reveals_are_wrong_phase(alice, started, unchanged):
    with unchanged():
        assert_problem(
            alice.post(f"/matches/{started}/moves", {"step": 1, "commitment": "a" * 64}),
            409,
            "wrong_phase",
        )
        assert_problem(
            alice.post(
                f"/matches/{started}/reveals", {"step": 1, "move": {"card": 1}, "salt": "ab" * 16}
            ),
            409,
            "wrong_phase",
        )


@pytest.mark.parametrize(
    "body",
    [
        {"move": {"card": 1}},
        {"step": "one", "move": {"card": 1}},
        {"step": 0, "move": {"card": 1}},
        {"step": 1},
        {"step": 1, "move": [1]},
        {"step": 1, "move": {"card": 1}, "commitment": "a" * 64},
        {"step": 1, "move": {"card": 1}, "extra": True},
    ],
)
def test_move_envelope_errors(alice, started, unchanged, body):
    with unchanged():
        assert_problem(alice.post(f"/matches/{started}/moves", body), 400, "validation_error")


def test_envelope_is_checked_before_the_match_is_looked_up(alice, unchanged):
    with unchanged():
        assert_problem(
            alice.post("/matches/00000000-0000-0000-0000-000000000000/moves", {"step": "x"}),
            400,
            "validation_error",
        )


def test_malformed_json_is_parse_error(alice, started, unchanged):
    with unchanged():
        response = alice.client.post(
            f"{API}/matches/{started}/moves", data='{"step": 1,', content_type="application/json"
        )
        assert_problem(response, 400, "parse_error")


def test_unsupported_media_type_and_method(alice, started, unchanged):
    with unchanged():
        response = alice.client.post(
            f"{API}/matches/{started}/moves",
            data="step=1",
            content_type="application/x-www-form-urlencoded",
        )
        assert_problem(response, 415, "unsupported_media_type")
        assert_problem(alice.client.delete(f"{API}/matches/{started}"), 405, "method_not_allowed")


@pytest.mark.parametrize("header", [None, "Token not-a-real-token", "Bearer abc"])
def test_missing_or_bad_token_is_401(db, started, unchanged, header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    with unchanged():
        for response in (
            client.get(f"{API}/matches/{started}"),
            client.get(f"{API}/matches"),
            client.post(
                f"{API}/matches/{started}/moves", {"step": 1, "move": {"card": 1}}, format="json"
            ),
        ):
            assert_problem(response, 401, "not_authenticated")
            assert response["WWW-Authenticate"] == "Token"


def test_auth_comes_before_not_found_and_parse(db, unchanged):
    client = APIClient()
    with unchanged():
        assert_problem(client.get(f"{API}/matches/not-a-uuid"), 401, "not_authenticated")
        response = client.post(f"{API}/matches", data="{", content_type="application/json")
        assert_problem(response, 401, "not_authenticated")


@pytest.mark.parametrize(
    "path",
    [
        "/matches/00000000-0000-0000-0000-000000000000",
        "/matches/not-a-uuid",
        "/matches/00000000-0000-0000-0000-000000000000/events",
        "/games/chess",
        "/no-such-endpoint",
    ],
)
def test_unknown_resources_are_404(alice, path):
    assert_problem(alice.get(path), 404, "not_found")


def test_unknown_match_on_post_is_404(alice, unchanged):
    with unchanged():
        assert_problem(
            alice.move("00000000-0000-0000-0000-000000000000", 1, {"card": 1}), 404, "not_found"
        )
        assert_problem(alice.post("/matches/nope/join"), 404, "not_found")


def test_join_errors(alice, bob, carol, player, unchanged):
    match_id = alice.create("gops", ["me", "open"]).json()["id"]
    with unchanged():
        assert_problem(alice.post(f"/matches/{match_id}/join"), 409, "already_seated")
        assert_problem(bob.post(f"/matches/{match_id}/join", {"seat": 0}), 409, "seat_taken")
        assert_problem(bob.post(f"/matches/{match_id}/join", {"seat": 7}), 400, "validation_error")
        assert_problem(
            bob.post(f"/matches/{match_id}/join", {"client_seed": "no spaces"}),
            400,
            "validation_error",
        )
        assert_problem(
            bob.post(f"/matches/{match_id}/join", {"client_seed": "x" * 65}),
            400,
            "validation_error",
        )
    bob.post(f"/matches/{match_id}/join")
    with unchanged():
        assert_problem(carol.post(f"/matches/{match_id}/join"), 409, "match_not_active")
    full = alice.create("gops", ["me", {"user": "bob"}]).json()["id"]
    with unchanged():
        assert_problem(carol.post(f"/matches/{full}/join"), 409, "seat_taken")


def test_decline_errors(alice, bob, carol, unchanged):
    match_id = alice.create("gops", ["me", {"user": "bob"}, "open"]).json()["id"]
    with unchanged():
        assert_problem(alice.post(f"/matches/{match_id}/decline"), 403, "permission_denied")
    bob.post(f"/matches/{match_id}/join")
    with unchanged():
        assert_problem(bob.post(f"/matches/{match_id}/decline"), 403, "permission_denied")


def test_resign_twice_after_forfeit(alice, bob, carol, unchanged):
    match_id = start_match("gops", [alice, bob, carol])
    carol.post(f"/matches/{match_id}/resign")
    with unchanged():
        assert_problem(carol.post(f"/matches/{match_id}/resign"), 409, "match_not_active")
        assert_problem(carol.move(match_id, 1, {"card": 1}), 409, "not_your_turn")


def test_audit_of_a_running_match_is_match_not_finished(alice, started, unchanged):
    with unchanged():
        assert_problem(alice.get(f"/matches/{started}/audit"), 409, "match_not_finished")


def test_events_after_must_be_a_number(alice, started):
    assert_problem(alice.get(f"/matches/{started}/events?after=x"), 400, "validation_error")


def test_server_errors_are_problems_too(alice, started, monkeypatch):
    from games.api import matches

    def boom(**kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(matches, "move_submit", boom)
    alice.client.raise_request_exception = False
    response = alice.move(started, 1, {"card": 1})
    assert_problem(response, 500, "server_error")
    assert "boom" not in response.content.decode()


def test_registration_and_token_errors(db):
    client = APIClient()
    ok = client.post(
        f"{API}/accounts/register",
        {"username": "dora", "password": "long-enough-pw"},
        format="json",
    )
    assert ok.status_code == 201 and set(ok.json()) == {"username", "token"}
    for body in (
        {"username": "dora", "password": "long-enough-pw"},
        {"username": "x", "password": "long-enough-pw"},
        {"username": "eve", "password": "short"},
        {"username": "eve"},
    ):
        assert_problem(
            client.post(f"{API}/accounts/register", body, format="json"), 400, "validation_error"
        )
    assert_problem(
        client.post(
            f"{API}/accounts/token",
            {"username": "dora", "password": "wrong-password"},
            format="json",
        ),
        400,
        "validation_error",
    )
    token = client.post(
        f"{API}/accounts/token", {"username": "dora", "password": "long-enough-pw"}, format="json"
    )
    # Each login is a token of its own; the registration's still works.
    assert token.status_code == 200 and token.json()["token"] != ok.json()["token"]
    for secret in (ok.json()["token"], token.json()["token"]):
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        assert client.get(f"{API}/accounts/me").json()["username"] == "dora"


def test_every_documented_code_is_in_the_schema(db):
    schema = APIClient().get("/api/schema/?format=json")
    assert schema.status_code == 200
    text = schema.content.decode()
    from core.errors import ERROR_CODES

    for code in ERROR_CODES:
        assert code in text, code


def test_player_type_is_used(alice: Player) -> None:
    assert alice.name == "alice"
