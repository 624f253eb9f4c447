"""The client's errors say why, one class per family; an open challenge is sent without ``to``;
the token comes from the environment or a file; ``login()`` again replaces its token."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from facedown_client import Client
from facedown_client.cli import load_config, make_client
from facedown_client.errors import (
    ApiError,
    BadRequest,
    Conflict,
    FacedownError,
    NotAuthenticated,
    NotFound,
    ScopeRefused,
)

from tests.clients.conftest import PASSWORD

pytestmark = pytest.mark.usefixtures("transactional_db")


def test_an_open_challenge_is_sent_without_to(registered: Callable[[], Client]) -> None:
    alice, bob = registered(), registered()
    challenge = alice.challenges.create("gops", options={"num_cards": 3})
    assert challenge["status"] == "pending" and challenge["to"] is None
    assert challenge["id"] in [c["id"] for c in bob.challenges.list()["open"]]
    accepted = bob.challenges.accept(challenge["id"])
    assert accepted["status"] == "accepted" and accepted["match_id"]


def test_errors_say_why_and_come_in_families(registered: Callable[[], Client], server: str) -> None:
    alice, bob = registered(), registered()
    with pytest.raises(BadRequest) as bad:
        alice.challenges.create("gops", to=bob.account.get()["username"], expires_in=5)
    text = str(bad.value)
    assert text.startswith("400 validation_error: Invalid request.")
    assert "[expires_in: " in text and bad.value.errors["expires_in"][0] in text
    assert isinstance(bad.value, ApiError) and isinstance(bad.value, FacedownError)

    with pytest.raises(NotFound) as missing:
        alice.matches.get(str(uuid.uuid4()))
    assert missing.value.status == 404 and missing.value.code in str(missing.value)

    challenge = alice.challenges.create("gops", options={"num_cards": 3})
    alice.challenges.cancel(challenge["id"])
    with pytest.raises(Conflict) as closed:
        bob.challenges.accept(challenge["id"])
    assert closed.value.code == "challenge_closed" and "challenge_closed" in str(closed.value)

    read_only = Client(server, alice.tokens.create("reader", ["read"])["token"])
    with pytest.raises(ScopeRefused) as refused:
        read_only.challenges.create("gops")
    assert refused.value.status == 403 and "insufficient_scope" in str(refused.value)


def test_login_twice_leaves_one_token_that_expires(
    registered: Callable[[], Client], server: str
) -> None:
    name = registered().account.get()["username"]
    first, second = Client(server), Client(server)
    first.login(name, PASSWORD)
    made = second.login(name, PASSWORD)
    assert made["name"] == "facedown-client" and made["expires_at"] is not None
    named = [t for t in second.tokens.list() if t["name"] == "facedown-client"]
    assert [t["id"] for t in named] == [made["id"]]
    with pytest.raises(NotAuthenticated):
        first.account.get()  # the first login's token was replaced
    forever = second.login(name, PASSWORD, name="long-lived", expires_in=None)
    assert forever["expires_at"] is None


def test_the_token_comes_from_the_environment_or_a_file(
    registered: Callable[[], Client],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = registered()
    name = owner.account.get()["username"]
    monkeypatch.setenv("FACEDOWN_URL", server)
    monkeypatch.setenv("FACEDOWN_TOKEN", str(owner.token))
    monkeypatch.setenv("FACEDOWN_TOKEN_FILE", str(tmp_path / "absent"))
    assert Client.from_env().account.get()["username"] == name

    monkeypatch.delenv("FACEDOWN_TOKEN")
    with pytest.raises(FacedownError, match="no token in"):
        Client.from_env()
    secret = owner.tokens.create("from a file", ["read"])["token"]
    (tmp_path / "token").write_text(secret + "\n")
    monkeypatch.setenv("FACEDOWN_TOKEN_FILE", str(tmp_path / "token"))
    assert Client.from_env().account.get()["username"] == name

    # facedown-bot's config: its token, or its token file, where the environment has none.
    monkeypatch.delenv("FACEDOWN_TOKEN_FILE")
    config = tmp_path / "bot.toml"
    config.write_text(f'url = "{server}"\ntoken_file = "{tmp_path / "token"}"\n')
    assert make_client(load_config(str(config)), None).account.get()["username"] == name
    config.write_text(f'url = "{server}"\ntoken = "{secret}"\n')
    assert make_client(load_config(str(config)), None).token == secret
