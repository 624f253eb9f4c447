"""Personal access tokens: named, scoped, expiring, revoked one by one, kept as digests; bot
accounts play only with ``bot:play`` tokens (docs/programs.md)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.authentication import forget_cached_tokens
from accounts.models import AccessToken, User
from accounts.tokens import token_issue
from tests.players import API, Player, make_player, start_match

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery"


def _client(secret: str, keyword: str = "Bearer") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} {secret}")
    return client


def _login(username: str, **extra: Any) -> Any:
    body = {"username": username, "password": PASSWORD} | extra
    return APIClient().post(f"{API}/accounts/token", body, format="json")


def test_each_login_is_a_named_token_and_logout_ends_only_it() -> None:
    alice = make_player()
    phone, laptop = _login(alice.name, name="phone"), _login(alice.name, name="laptop")
    assert phone.status_code == laptop.status_code == 200
    assert phone.json()["name"] == "phone" and phone.json()["token"] != laptop.json()["token"]
    assert "play" in phone.json()["scopes"] and "bot:play" not in phone.json()["scopes"]
    on_phone, on_laptop = _client(phone.json()["token"]), _client(laptop.json()["token"], "Token")
    assert on_phone.post(f"{API}/accounts/logout").status_code == 204
    assert on_phone.get(f"{API}/accounts/me").status_code == 401
    assert on_laptop.get(f"{API}/accounts/me").status_code == 200
    assert alice.get("/accounts/me").status_code == 200  # the tests' own token too


def test_a_login_that_replaces_revokes_the_old_token_of_its_name_only() -> None:
    alice = make_player()
    first = _login(alice.name, name="my bot", expires_in=3600).json()
    other = _login(alice.name, name="phone").json()
    again = _login(alice.name, name="my bot", expires_in=3600, replace=True)
    assert again.status_code == 200, again.content
    assert again.json()["expires_at"] is not None
    assert _client(first["token"]).get(f"{API}/accounts/me").status_code == 401
    assert _client(again.json()["token"]).get(f"{API}/accounts/me").status_code == 200
    assert _client(other["token"]).get(f"{API}/accounts/me").status_code == 200
    names = [t.name for t in AccessToken.objects.filter(user__username=alice.name)]
    assert names.count("my bot") == 1 and names.count("phone") == 1
    # A wrong password replaces nothing.
    refused = _login(alice.name, name="my bot", replace=True, password="wrong-password")
    assert refused.status_code == 400, refused.content
    assert refused.json()["errors"] == {
        "non_field_errors": ["Unable to log in with the provided credentials."]
    }
    assert _client(again.json()["token"]).get(f"{API}/accounts/me").status_code == 200


def test_a_created_token_is_shown_once_and_kept_as_a_digest() -> None:
    alice = make_player()
    made = alice.post(
        "/accounts/me/tokens", {"name": "bot", "scopes": ["read"], "expires_in": 3600}
    )
    assert made.status_code == 201, made.content
    secret = made.json()["token"]
    assert secret.startswith("fdp_") and made.json()["scopes"] == ["read"]
    row = AccessToken.objects.get(pk=made.json()["id"])
    assert row.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(list(AccessToken.objects.values_list()))
    listed = alice.get("/accounts/me/tokens").json()
    assert [t["name"] for t in listed] == ["tests", "bot"]
    assert all("token" not in t for t in listed) and secret not in str(listed)
    assert listed[1]["expires_at"] is not None


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": "x", "scopes": []}, "scopes"),
        ({"name": "x", "scopes": ["admin"]}, "scopes.0"),
        ({"name": "x", "scopes": ["bot:play"]}, "scopes"),
        ({"name": "x", "scopes": ["read"], "expires_in": 5}, "expires_in"),
        ({"scopes": ["read"]}, "name"),
    ],
)
def test_bad_token_requests_are_refused_and_change_nothing(body: Any, field: str) -> None:
    alice = make_player()
    answer = alice.post("/accounts/me/tokens", body)
    assert answer.status_code == 400 and field in answer.json()["errors"], answer.json()
    assert AccessToken.objects.filter(user=alice.user).count() == 1


def test_scopes_limit_what_a_token_may_do() -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob])
    reader = _client(token_issue(alice.user, name="r", scopes=["read"])[1])
    player = _client(token_issue(alice.user, name="p", scopes=["play"])[1])
    move = {"step": 1, "move": {"card": 3}}
    assert reader.get(f"{API}/matches/{match_id}").status_code == 200
    refused = reader.post(f"{API}/matches/{match_id}/moves", move, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert "'play'" in refused.json()["detail"]
    assert (
        reader.post(f"{API}/accounts/me/tokens", {"name": "x", "scopes": ["read"]}).status_code
        == 403
    )
    assert player.get(f"{API}/matches/{match_id}").status_code == 200  # play includes read
    assert player.post(f"{API}/matches/{match_id}/moves", move, format="json").status_code == 202
    assert player.get(f"{API}/accounts/me/export").status_code == 403  # the account's data
    assert player.post(f"{API}/challenges", {"game": "gops"}, format="json").status_code == 403


def test_an_expired_or_revoked_token_is_refused() -> None:
    alice = make_player()
    made = alice.post(
        "/accounts/me/tokens", {"name": "short", "scopes": ["read"], "expires_in": 60}
    )
    short = _client(made.json()["token"])
    assert short.get(f"{API}/accounts/me").status_code == 200  # now cached
    AccessToken.objects.filter(pk=made.json()["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    forget_cached_tokens()
    assert short.get(f"{API}/accounts/me").status_code == 401
    other = alice.post("/accounts/me/tokens", {"name": "other", "scopes": ["read"]}).json()
    assert alice.client.delete(f"{API}/accounts/me/tokens/{other['id']}").status_code == 204
    assert _client(other["token"]).get(f"{API}/accounts/me").status_code == 401
    assert alice.client.delete(f"{API}/accounts/me/tokens/{other['id']}").status_code == 404


def test_last_use_is_written_at_most_once_an_interval(settings: Any) -> None:
    alice = make_player()
    settings.FACEDOWN_TOKEN_LAST_USED_SECONDS = 0
    assert alice.get("/accounts/me").status_code == 200
    first = AccessToken.objects.get(user=alice.user).last_used_at
    assert first is not None
    settings.FACEDOWN_TOKEN_LAST_USED_SECONDS = 3600
    alice.get("/accounts/me")
    assert AccessToken.objects.get(user=alice.user).last_used_at == first


def test_a_bot_account_plays_only_with_bot_play() -> None:
    robo = make_player()
    became = robo.post("/accounts/me/bot")
    assert became.status_code == 200 and became.json()["bot"] is True
    assert robo.get("/accounts/me").status_code == 401  # its tokens were revoked
    login = _login(robo.name)
    assert "bot:play" in login.json()["scopes"] and "play" not in login.json()["scopes"]
    bot = Player(user=User.objects.get(pk=robo.user.pk), token=login.json()["token"])
    human = make_player()
    match_id = start_match("gops", [human, bot])
    assert bot.move(match_id, 1, {"card": 1}).status_code == 202
    refused = bot.post("/accounts/me/tokens", {"name": "x", "scopes": ["play"]})
    assert refused.status_code == 400
    session = APIClient()
    session.force_login(bot.user)  # a bot account's web session may not play
    answer = session.post(f"{API}/matches/{match_id}/resign", {}, format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "insufficient_scope"
    assert human.post("/accounts/me/bot").json()["code"] == "bot_refused"  # it has played
    assert human.get(f"/players/{bot.name}").json()["bot"] is True


def test_tokens_of_the_one_token_scheme_carry_over(transactional_db: None) -> None:
    """The migration's step: an old token (kept in the clear) becomes an access token with
    every scope of a person, found by its digest; the old table goes."""
    migration = __import__(
        "accounts.migrations.0006_access_tokens", fromlist=["old_tokens_carried"]
    )
    alice = make_player()
    key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, user_id bigint, "
            "created timestamptz)"
        )
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, %s, now())", [key, alice.user.pk])
    with connection.schema_editor() as editor:
        migration.old_tokens_carried(apps, editor)
    assert "authtoken_token" not in connection.introspection.table_names()
    carried = _client(key, "Token")
    assert carried.get(f"{API}/accounts/me").json()["username"] == alice.name
    assert AccessToken.objects.get(digest=hashlib.sha256(key.encode()).hexdigest()).scopes == [
        "read",
        "play",
        "challenge",
        "account",
        "tournament",
    ]


def test_logout_from_the_web_session_ends_the_session_not_the_tokens() -> None:
    alice = make_player()
    session = APIClient()
    session.force_login(alice.user)
    assert session.get(f"{API}/accounts/me").status_code == 200
    assert session.post(f"{API}/accounts/logout").status_code == 204
    assert session.get(f"{API}/accounts/me").status_code in (401, 403)
    assert alice.get("/accounts/me").status_code == 200  # its token stands
