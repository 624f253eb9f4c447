"""The web client's Web Push pieces: the service worker at the site's root, the button."""

from __future__ import annotations

from typing import Any

from django.test import Client

from tests.players import Player


def test_the_service_worker_is_served_at_the_root(client: Client) -> None:
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].split(";")[0] in ("text/javascript", "application/javascript")
    assert answer["Service-Worker-Allowed"] == "/"
    assert b'addEventListener("push"' in answer.content


def test_signed_in_pages_carry_the_notify_button(
    client: Client, alice: Player, settings: Any
) -> None:
    client.force_login(alice.user)
    page = client.get("/").content.decode()
    assert 'id="push-enable"' in page and "/assets/push.js" in page
    assert client.get("/assets/push.js").status_code == 200
