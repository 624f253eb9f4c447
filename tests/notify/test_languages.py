"""Mail and pushes follow the recipient's language, not that of whoever caused them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core import mail

from tests.notify.conftest import Jobs, LocalServer, verify
from tests.notify.test_push import Browser, vapid  # noqa: F401 - the VAPID keys fixture
from tests.players import API, Player

GOPS3 = {"options": {"num_cards": 3}}


def test_a_german_player_reads_mail_and_pushes_in_german_when_an_english_player_moves(
    vapid: str,  # noqa: F811
    jobs: Jobs,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],
    django_capture_on_commit_callbacks: Any,
) -> None:
    for player in (alice, bob):
        player.user.email = f"{player.name}@example.com"
        player.user.save()
        verify(player.user)
    bob.client.patch(f"{API}/accounts/me", {"language": "de"}, format="json")
    local, browser = server([201, 201, 201]), Browser()
    subscribed = bob.post(
        "/accounts/me/push-subscriptions",
        {"endpoint": f"{local.url}/push/bob", "keys": browser.keys(), "expirationTime": None},
    )
    assert subscribed.status_code == 201, subscribed.content

    english = {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9"}
    with django_capture_on_commit_callbacks(execute=True):
        created = alice.post(
            "/matches", {"game": "gops", "seats": ["me", {"user": "bob"}], **GOPS3}, **english
        )
        match_id = created.json()["id"]
    (invitation,) = [m for m in mail.outbox if m.to == ["bob@example.com"]]
    assert invitation.subject == "Facedown: alice hat dich zu gops eingeladen"
    assert "Nimm an oder lehne ab:" in invitation.body
    assert "Diese E-Mails abbestellen: http" in invitation.body

    with django_capture_on_commit_callbacks(execute=True):
        bob.post(f"/matches/{match_id}/join", {"client_seed": "bob-seed"})
        bob.move(match_id, 1, {"card": 2})
        alice.move(match_id, 1, {"card": 1}, **english)  # step 2 opens for bob
    to_bob = [m for m in mail.outbox if m.to == ["bob@example.com"]]
    assert to_bob[1].subject == "Facedown: dein Zug in 1 Partie"
    assert to_bob[1].body.startswith("Wartet auf dich:\n- gops, Schritt 2: http")
    to_alice = [m for m in mail.outbox if m.to == ["alice@example.com"]]
    assert to_alice and to_alice[0].subject == "Facedown: your move in 1 match"

    pushed = [browser.decrypt(received.body) for received in local.received]
    assert [p["title"] for p in pushed] == ["Dein Zug", "Dein Zug"]
    assert [p["body"] for p in pushed] == [
        "gops: Schritt 1 wartet auf dich.",
        "gops: Schritt 2 wartet auf dich.",
    ]
    assert {p["type"] for p in pushed} == {"your_move"}  # identifiers stay as they are


def test_the_unsubscribe_answer_is_in_the_language_of_the_link_owner(
    jobs: Jobs, alice: Player, bob: Player, django_capture_on_commit_callbacks: Any
) -> None:
    alice.user.email = "alice@example.com"
    alice.user.language = "de"
    alice.user.save()
    verify(alice.user)
    with django_capture_on_commit_callbacks(execute=True):
        bob.create("gops", ["me", {"user": "alice"}], **GOPS3)
    (invitation,) = mail.outbox
    link = invitation.extra_headers["List-Unsubscribe"].strip("<>")
    answer = Player.get(bob, link.split("/api/v1", 1)[1], HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 200
    assert answer.json() == {"detail": "Abbestellt: email_invited ist aus."}
