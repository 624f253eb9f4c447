"""Revocation reaches open streams and unused tickets (docs/live.md, "Authentication and
tickets"): every revocation path ends the user's open match and user streams, on every ASGI
process, within about a second, and refuses the tickets their credential issued. Real uvicorn
processes, the real Redis bus; revocations through their real entry points."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import AccessToken, TokenRevocation
from accounts.revocation import revocation_last
from tests.live.client import Stream
from tests.live.conftest import KEEPALIVE_SECONDS, Server
from tests.live.test_streams import _long_poll
from tests.players import API, Player, start_match

pytestmark = pytest.mark.usefixtures("transactional_db")

PASSWORD = "correct-horse-battery"
#: A notice crosses Redis in milliseconds; the bound leaves room for a loaded machine.
WITHIN_SECONDS = 1.5


def _staff() -> Client:
    from accounts.models import User

    admin = User.objects.create_superuser("operator", password=PASSWORD)
    client = Client()
    client.force_login(admin)
    return client


def _admin_action(action: str) -> Callable[[Player], None]:
    def run(player: Player) -> None:
        answer = _staff().post(
            "/admin/accounts/user/", {"action": action, "_selected_action": [player.user.pk]}
        )
        assert answer.status_code == 302, answer.content

    return run


def _api(method: str, path: str, body: Any = None, status: int = 200) -> Callable[[Player], None]:
    def run(player: Player) -> None:
        answer = getattr(player.client, method)(API + path, body, format="json")
        assert answer.status_code == status, answer.content

    return run


def _reset_confirm(player: Player) -> None:
    body = {
        "uid": urlsafe_base64_encode(force_bytes(player.user.pk)),
        "token": default_token_generator.make_token(player.user),
        "password": "a-much-better-passphrase-42",
    }
    answer = Client().post(API + "/accounts/password-reset/confirm", body, "application/json")
    assert answer.status_code == 200, answer.content


PATHS: dict[str, Callable[[Player], None]] = {
    "logout": _api("post", "/accounts/logout", status=204),
    "token-rotation": _api("post", "/accounts/token/rotate", {"current_password": PASSWORD}),
    "password-change": _api(
        "post",
        "/accounts/password",
        {"current_password": PASSWORD, "password": "a-much-better-passphrase-42"},
    ),
    "password-reset-confirm": _reset_confirm,
    "deactivation": _admin_action("deactivate_users"),
    "operator-token-reset": _admin_action("reset_tokens"),
    "account-deletion": _api("delete", "/accounts/me", {"password": PASSWORD}, status=204),
}


def _ticket(player: Player, *streams: str) -> str:
    answer = player.post("/accounts/stream-ticket", {"streams": list(streams)})
    assert answer.status_code == 200, answer.content
    return str(answer.json()["ticket"])


def _opened(server: Server, path: str, headers: dict[str, str] | None = None) -> Stream:
    stream = Stream(server.port, path, headers or {})
    assert stream.status == 200
    assert stream.events(1)[0].type == "snapshot"
    return stream


def _ends_within(stream: Stream, seconds: float) -> float:
    """How long the stream took to end (keep-alives until then); fails after ``seconds``."""
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        try:
            stream.next(0.1)
        except EOFError:
            return time.monotonic() - began
    raise AssertionError(f"the stream was still open after {seconds} s")


def _refused(server: Server, path: str) -> None:
    stream = Stream(server.port, path)
    assert stream.status == 401, "the stream opened"
    assert stream.body()["code"] == "not_authenticated"


@pytest.mark.parametrize("path", list(PATHS))
def test_every_revocation_ends_open_streams_and_refuses_tickets(
    asgi_servers: list[Server], path: str, alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match("gops", [alice, bob])
    match_path, me_path = f"/api/v1/matches/{match_id}/stream", "/api/v1/accounts/me/stream"
    token = {"Authorization": f"Token {alice.token}"}
    used, unused = _ticket(alice, "me"), _ticket(alice, f"match:{match_id}")
    streams = [
        _opened(asgi_servers[0], match_path, token),  # the token itself
        _opened(asgi_servers[1], f"{me_path}?ticket={used}"),  # a ticket, on the other process
        _opened(asgi_servers[1], me_path, token),
    ]
    others = start_match("gops", [bob, carol])  # alice's account may be closed: its own match
    bobs = _opened(
        asgi_servers[0], f"/api/v1/matches/{others}/stream", {"Authorization": f"Token {bob.token}"}
    )
    PATHS[path](alice)
    for stream in streams:
        _ends_within(stream, WITHIN_SECONDS)
    _refused(asgi_servers[0], f"{match_path}?ticket={unused}")  # never used
    _refused(asgi_servers[0], f"{me_path}?ticket={used}")  # EventSource reconnecting
    # Another user's stream goes on.
    assert bob.move(others, 1, {"card": 3}).status_code == 202
    assert bobs.events(1)[0].type == "move_submitted"
    bobs.close()


def test_a_web_session_logout_ends_what_the_session_opened(
    asgi_servers: list[Server], alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob])
    browser = Client()
    browser.force_login(alice.user)
    cookie = {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}
    asked = browser.post(
        API + "/accounts/stream-ticket", {"streams": ["me"]}, content_type="application/json"
    )
    assert asked.status_code == 200, asked.content
    ticket = asked.json()["ticket"]
    match_path, me_path = f"/api/v1/matches/{match_id}/stream", "/api/v1/accounts/me/stream"
    by_cookie = _opened(asgi_servers[0], match_path, cookie)
    by_ticket = _opened(asgi_servers[1], f"{me_path}?ticket={ticket}")
    by_token = _opened(asgi_servers[0], me_path, {"Authorization": f"Token {alice.token}"})
    assert browser.post("/logout").status_code == 302
    for stream in (by_cookie, by_ticket):
        _ends_within(stream, WITHIN_SECONDS)
    _refused(asgi_servers[0], f"{me_path}?ticket={ticket}")
    refused = Stream(asgi_servers[0].port, match_path, cookie)
    assert refused.status == 401
    # The API token is another credential: its stream goes on.
    assert by_token.quiet(2 * KEEPALIVE_SECONDS) == []
    by_token.close()


def test_a_lost_notice_is_caught_at_a_keepalive(asgi: Server, alice: Player, bob: Player) -> None:
    """The revocation is written without its notice (as if Redis had dropped it): the stream
    still ends, at a keep-alive after its process read the revocation log."""
    match_id = start_match("gops", [alice, bob])
    stream = _opened(
        asgi, f"/api/v1/matches/{match_id}/stream", {"Authorization": f"Token {alice.token}"}
    )
    AccessToken.objects.filter(user=alice.user).delete()
    TokenRevocation.objects.create(seq=revocation_last() + 1, user=alice.user)
    _ends_within(stream, 4 * KEEPALIVE_SECONDS + WITHIN_SECONDS)


def test_a_long_poll_asks_with_the_credential_it_has_now(
    asgi: Server, alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob])
    last = alice.events(match_id)["last_seq"]
    answers: list[Any] = []
    poll = threading.Thread(
        target=lambda: answers.append(_long_poll(asgi, alice, match_id, f"?after={last}&wait=10"))
    )
    poll.start()
    time.sleep(0.3)  # the poll is waiting on the bus
    assert alice.post("/accounts/logout").status_code == 204
    assert bob.move(match_id, 1, {"card": 4}).status_code == 202  # wakes the poll
    poll.join(timeout=8)
    ((status, problem, took),) = answers
    assert (status, problem["code"]) == (401, "not_authenticated") and took < 5


def test_a_new_token_opens_streams_the_old_ones_notice_leaves_open(
    asgi: Server, alice: Player, bob: Player
) -> None:
    """After a rotation, the new token's stream and ticket work: a stream checks its own
    credential on a notice, it does not end every stream of the user."""
    match_id = start_match("gops", [alice, bob])
    path = f"/api/v1/matches/{match_id}/stream"
    old = _opened(asgi, path, {"Authorization": f"Token {alice.token}"})
    rotated = alice.post("/accounts/token/rotate", {"current_password": PASSWORD})
    assert rotated.status_code == 200
    renewed = Player(alice.user, rotated.json()["token"])
    new = _opened(asgi, path, {"Authorization": f"Token {renewed.token}"})
    by_ticket = _opened(asgi, f"{path}?ticket={_ticket(renewed, f'match:{match_id}')}")
    _ends_within(old, WITHIN_SECONDS)
    assert renewed.move(match_id, 1, {"card": 2}).status_code == 202
    for stream in (new, by_ticket):
        assert stream.events(1)[0].type == "move_submitted"
        stream.close()


def test_an_unused_ticket_dies_with_the_token_that_asked_for_it(
    asgi: Server, alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob])
    ticket = _ticket(alice, f"match:{match_id}", "me")
    rotate = alice.post("/accounts/token/rotate", {"current_password": PASSWORD})
    assert rotate.status_code == 200
    for path in (f"/api/v1/matches/{match_id}/stream", "/api/v1/accounts/me/stream"):
        _refused(asgi, f"{path}?ticket={ticket}")
