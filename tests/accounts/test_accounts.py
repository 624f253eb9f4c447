"""Account security: registration rules, tokens, passwords, reset, deletion and export."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core import mail
from rest_framework.test import APIClient

from accounts.models import AccessToken, User
from games.services.operators import match_abort
from tests.notify.conftest import verify
from tests.players import API, Player, make_player, play_to_end, start_match

PASSWORD = "correct-horse-battery"
NEW_PASSWORD = "a-brand-new-secret"


def anonymous(path: str, body: Any) -> Any:
    return APIClient().post(f"{API}{path}", body, format="json")


def register(username: str, password: str = "a-long-new-password", **extra: str) -> Any:
    return anonymous("/accounts/register", {"username": username, "password": password, **extra})


def token_works(token: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get(f"{API}/accounts/me").status_code == 200


def delete(player: Player, body: Any) -> Any:
    return player.client.delete(f"{API}/accounts/me", body, format="json")


@pytest.mark.parametrize(
    ("username", "password"),
    [
        ("dora", "short-pw"),  # too short
        ("dora", "password1234"),  # common
        ("dora", "4815162342108"),  # numeric
        ("dorabella", "dorabella1"),  # like the username
        ("dora", "doraexample"),  # like the e-mail address
    ],
)
def test_weak_passwords_are_refused_under_password(db, username, password):
    answer = register(username, password, email="doraexample@example.com")
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "validation_error" and list(body["errors"]) == ["password"]
    assert not User.objects.filter(username=username).exists()


def test_usernames_are_normalised_unique_regardless_of_case_and_not_look_alikes(db):
    created = register("\uff41\uff4c\uff49\uff43\uff45")  # full-width "alice"
    assert created.status_code == 201 and created.json()["username"] == "alice"
    for taken in ("Alice", "ALICE", "a1ice", "aIice", "AL1CE", "ALlCE", "\u0430lice", "deleted-7"):
        answer = register(taken)
        assert answer.status_code == 400, taken
        assert list(answer.json()["errors"]) == ["username"], taken
    make_player("modern")
    assert register("rnodern").status_code == 400
    assert register("alicia").status_code == 201
    # Login ignores case (and width).
    for name in ("ALICE", "Alice", "\uff21lice"):
        answer = anonymous("/accounts/token", {"username": name, "password": "a-long-new-password"})
        assert answer.status_code == 200, name


def test_unknown_fields_are_refused(db):
    answer = register("dora", admin="true")
    assert answer.status_code == 400 and list(answer.json()["errors"]) == ["admin"]


def test_logout_revokes_the_token(alice):
    assert alice.post("/accounts/logout").status_code == 204
    assert not token_works(alice.token)
    fresh = anonymous("/accounts/token", {"username": "alice", "password": PASSWORD})
    assert fresh.status_code == 200 and token_works(fresh.json()["token"])


def test_rotation_issues_a_new_token_and_revokes_the_old(alice, settings):
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30  # the cache is forgotten on rotation
    assert token_works(alice.token)
    rotated = alice.post("/accounts/token/rotate", {"current_password": PASSWORD})
    assert rotated.status_code == 200
    new = rotated.json()["token"]
    assert new != alice.token and token_works(new) and not token_works(alice.token)


def test_password_change_needs_the_current_password_and_revokes_tokens(alice):
    wrong = alice.post(
        "/accounts/password", {"current_password": "not-it-at-all", "password": NEW_PASSWORD}
    )
    assert wrong.status_code == 400 and list(wrong.json()["errors"]) == ["current_password"]
    weak = alice.post("/accounts/password", {"current_password": PASSWORD, "password": "alice"})
    assert weak.status_code == 400 and list(weak.json()["errors"]) == ["password"]
    changed = alice.post(
        "/accounts/password", {"current_password": PASSWORD, "password": NEW_PASSWORD}
    )
    assert changed.status_code == 200
    assert not token_works(alice.token) and token_works(changed.json()["token"])
    old = anonymous("/accounts/token", {"username": "alice", "password": PASSWORD})
    assert old.status_code == 400
    new = anonymous("/accounts/token", {"username": "alice", "password": NEW_PASSWORD})
    assert new.status_code == 200


def test_password_reset_by_mail_without_telling_who_has_an_account(
    alice, jobs, django_capture_on_commit_callbacks
):
    alice.user.email = "alice@example.com"
    alice.user.save()
    verify(alice.user)
    with django_capture_on_commit_callbacks(execute=True):
        known = anonymous("/accounts/password-reset", {"email": "ALICE@example.com"})
        unknown = anonymous("/accounts/password-reset", {"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 202
    assert known.json() == unknown.json()
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.com"]
    text = mail.outbox[0].body
    uid = re.search(r"uid=([\w-]+)", text).group(1)
    token = re.search(r"token=([\w-]+)", text).group(1)

    bad = {"uid": uid, "token": token[:-1] + ("0" if token[-1] != "0" else "1")}
    refused = anonymous("/accounts/password-reset/confirm", {**bad, "password": NEW_PASSWORD})
    assert refused.status_code == 400 and list(refused.json()["errors"]) == ["token"]
    garbage = {"uid": "!!", "token": token, "password": NEW_PASSWORD}
    assert anonymous("/accounts/password-reset/confirm", garbage).status_code == 400

    body = {"uid": uid, "token": token, "password": NEW_PASSWORD}
    confirmed = anonymous("/accounts/password-reset/confirm", body)
    assert confirmed.status_code == 200
    assert not token_works(alice.token) and token_works(confirmed.json()["token"])
    # The link works once.
    again = anonymous("/accounts/password-reset/confirm", {**body, "password": "yet-another-one"})
    assert again.status_code == 400
    login = anonymous("/accounts/token", {"username": "alice", "password": NEW_PASSWORD})
    assert login.status_code == 200


def test_reset_links_expire(alice, settings, jobs, django_capture_on_commit_callbacks):
    alice.user.email = "alice@example.com"
    alice.user.save()
    verify(alice.user)
    with django_capture_on_commit_callbacks(execute=True):
        anonymous("/accounts/password-reset", {"email": "alice@example.com"})
    text = mail.outbox[0].body
    uid = re.search(r"uid=([\w-]+)", text).group(1)
    token = re.search(r"token=([\w-]+)", text).group(1)
    settings.PASSWORD_RESET_TIMEOUT = -1
    body = {"uid": uid, "token": token, "password": NEW_PASSWORD}
    assert anonymous("/accounts/password-reset/confirm", body).status_code == 400


def test_deleting_an_account_forfeits_live_seats_and_keeps_finished_matches(
    alice, bob, carol, settings
):
    settings.FACEDOWN_TASK_RUNNER = "off"
    finished = start_match("gops", [alice, bob], options={"num_cards": 3})
    play_to_end(finished, [alice, bob])
    live = start_match("gops", [alice, bob, carol], options={"num_cards": 3})
    waiting = alice.create("gops", ["me", "open"]).json()["id"]

    wrong = delete(alice, {"password": "not-the-password"})
    assert wrong.status_code == 400 and list(wrong.json()["errors"]) == ["password"]
    assert delete(alice, {"password": PASSWORD}).status_code == 204

    assert not token_works(alice.token)
    user = User.objects.get(pk=alice.user.pk)
    assert user.username == f"deleted~{user.pk}" and not user.is_active
    assert user.email == "" and not user.has_usable_password()
    assert not AccessToken.objects.filter(user=user).exists()
    seen = bob.match(live)
    assert seen["status"] == "active" and seen["seats"][0]["forfeited"] is True
    assert seen["seats"][0]["player"] == f"deleted~{user.pk}"
    assert bob.match(waiting)["status"] == "aborted"
    over = bob.match(finished)
    assert over["status"] == "finished" and over["seats"][0]["player"] == f"deleted~{user.pk}"
    old = anonymous("/accounts/token", {"username": "alice", "password": PASSWORD})
    assert old.status_code == 400
    # The old name is gone from the history of every match too (events named the seats).
    for match_id in (finished, live, waiting):
        history = json.dumps(bob.events(match_id)["results"])
        assert '"alice"' not in history, history
    created = bob.events(finished)["results"][0]
    assert created["data"]["seats"][0]["player"] == f"deleted~{user.pk}"


def test_export_holds_the_account_its_matches_and_only_its_own_moves(alice, bob, settings):
    settings.FACEDOWN_TASK_RUNNER = "off"
    finished = start_match("gops", [alice, bob], options={"num_cards": 3})
    play_to_end(finished, [alice, bob])
    live = start_match("gops", [alice, bob], options={"num_cards": 3})
    step = bob.match(live)["step"]
    # Bob's move is sealed in the open step; Alice has not moved in it.
    assert bob.move(live, step, bob.match(live)["legal_moves"][0]).status_code == 202

    answer = alice.get("/accounts/me/export")
    assert answer.status_code == 200
    data = answer.json()
    assert data["account"]["username"] == "alice"
    by_id = {m["id"]: m for m in data["matches"]}
    assert set(by_id) == {finished, live}
    over = by_id[finished]
    assert over["seat"] == 0 and [m["step"] for m in over["moves"]] == [1, 2, 3]
    assert all(move["move"] is not None for move in over["moves"])
    assert over["result"]["reason"] == "completed"
    # Only Alice's own moves (none yet in the live match): never Bob's sealed one.
    assert by_id[live]["moves"] == [] and by_id[live]["result"] is None


def test_an_unfinished_match_exports_the_step_but_not_the_move(alice, bob, settings):
    settings.FACEDOWN_TASK_RUNNER = "off"
    live = start_match("gops", [alice, bob], options={"num_cards": 3})
    seen = alice.match(live)
    assert alice.move(live, seen["step"], seen["legal_moves"][0]).status_code == 202
    moves = alice.get("/accounts/me/export").json()["matches"][0]["moves"]
    assert [(m["step"], m["made_by"], m["move"]) for m in moves] == [(seen["step"], "player", None)]


def test_a_closed_operator_account_leaves_no_name_in_the_events(alice, bob, settings):
    settings.FACEDOWN_TASK_RUNNER = "off"
    operator = make_player("oscar")
    User.objects.filter(pk=operator.user.pk).update(is_staff=True)
    operator.user.refresh_from_db()
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    match_abort(match_id=match_id, operator=operator.user, reason="test")
    assert delete(operator, {"password": PASSWORD}).status_code == 204
    aborted = bob.events(match_id)["results"][-1]
    assert aborted["type"] == "match_aborted"
    assert aborted["data"]["operator"] == f"deleted~{operator.user.pk}"
