"""E-mail: verification, the batched "your move" digest, the other kinds, preferences and the
one-click unsubscribe link."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from notify.mail import mail_notifications
from notify.models import MailItem, NotificationSettings
from tests.leaks import alternatives
from tests.notify.conftest import Jobs, verify
from tests.players import API, Player, start_match

GOPS3 = {"options": {"num_cards": 3}}


@pytest.fixture
def mailed(alice: Player, bob: Player, jobs: Jobs) -> tuple[Player, Player]:
    for player in (alice, bob):
        player.user.email = f"{player.name}@example.com"
        player.user.save()
        verify(player.user)
    return alice, bob


def _to(address: str) -> list[Any]:
    return [m for m in mail.outbox if m.to == [address]]


def _link(text: str, path: str) -> str:
    found = re.search(rf"http://[^/\s]+(/api/v1/accounts/{path}\?token=[^\s>]+)", text)
    assert found, text
    return found.group(1)


def test_an_address_gets_only_its_verification_until_verified(
    jobs: Jobs, django_capture_on_commit_callbacks: Any, bob: Player
) -> None:
    client = APIClient()
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            f"{API}/accounts/register",
            {"username": "dora", "password": "a-long-passphrase", "email": "dora@example.com"},
            format="json",
        )
    assert answer.status_code == 201
    dora = Player(user=User.objects.get(username="dora"), token=answer.json()["token"])
    (verification,) = mail.outbox
    assert verification.to == ["dora@example.com"] and "confirm" in verification.subject
    link = _link(verification.body, "email/verify")

    with django_capture_on_commit_callbacks(execute=True):
        start_match("gops", [dora, bob], **GOPS3)
    assert len(mail.outbox) == 1  # "your move" waits for a verified address
    assert dora.get("/accounts/me/notifications").json()["email_verified"] is False

    assert APIClient().get(link).status_code == 200
    assert dora.get("/accounts/me/notifications").json()["email_verified"] is True

    with django_capture_on_commit_callbacks(execute=True):
        changed = dora.client.patch(
            f"{API}/accounts/me",
            {"email": "d2@example.com", "current_password": "a-long-passphrase"},
            format="json",
        )
    assert changed.status_code == 200 and changed.json()["email"] == "d2@example.com"
    assert mail.outbox[-1].to == ["d2@example.com"]
    assert dora.get("/accounts/me/notifications").json()["email_verified"] is False
    stale = APIClient().get(link)  # it proved the old address, not this one
    assert stale.status_code == 400 and stale.json()["code"] == "validation_error"


def test_your_move_is_one_digest_per_interval_listing_every_waiting_match(
    mailed: tuple[Player, Player], jobs: Jobs, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = mailed
    with django_capture_on_commit_callbacks(execute=True):
        first = start_match("gops", [alice, bob], **GOPS3)
    (digest,) = _to("alice@example.com")
    assert digest.subject == "Facedown: your move in 1 match" and first in digest.body

    with django_capture_on_commit_callbacks(execute=True):
        second = start_match("gops", [bob, alice], **GOPS3)
        alice.move(first, 1, {"card": 1})  # step 1 of the first match: alice has moved
    assert len(_to("alice@example.com")) == 2  # the invitation to the second match only
    assert [name for name, _, _ in jobs] == ["mail_your_move_digest"] * 2

    # The interval passes: the digest lists what still waits (the second match only).
    hour = timedelta(hours=1)
    NotificationSettings.objects.filter(user=alice.user).update(
        your_move_mailed_at=timezone.now() - hour
    )
    for index, (name, args, eta) in enumerate(jobs):
        jobs[index] = (name, args, eta - hour)
    assert jobs.run_due() == 2
    *_, later = _to("alice@example.com")
    assert later.subject == "Facedown: your move in 1 match"
    assert second in later.body and first not in later.body
    assert len(_to("alice@example.com")) == 3  # the second job found nothing left to send


def test_every_mail_has_a_working_one_click_unsubscribe(
    mailed: tuple[Player, Player], jobs: Jobs, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = mailed
    with django_capture_on_commit_callbacks(execute=True):
        match_id = start_match("gops", [alice, bob], **GOPS3)
    with django_capture_on_commit_callbacks(execute=True):
        assert bob.post(f"/matches/{match_id}/resign").status_code == 200
    sent = _to("bob@example.com")
    assert [m.subject for m in sent] == [
        "Facedown: alice invited you to gops",
        "Facedown: your move in 1 match",
        "Facedown: your gops match is over",
    ]
    for message in sent:
        header = message.extra_headers["List-Unsubscribe"]
        assert header.strip("<>") in message.body
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    one_click = _link(sent[0].extra_headers["List-Unsubscribe"], "notifications/unsubscribe")
    assert APIClient().post(one_click).status_code == 200
    assert bob.get("/accounts/me/notifications").json()["email_invited"] is False
    forged = APIClient().get(one_click[:-3] + "xyz")
    assert forged.status_code == 400

    mail.outbox.clear()
    NotificationSettings.objects.update(your_move_mailed_at=None)  # the interval is over
    with django_capture_on_commit_callbacks(execute=True):
        start_match("gops", [alice, bob], **GOPS3)
    assert [m.subject for m in _to("bob@example.com")] == ["Facedown: your move in 1 match"]


def test_preferences_read_change_and_refuse_unknown_fields(
    mailed: tuple[Player, Player], jobs: Jobs, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = mailed
    prefs = bob.get("/accounts/me/notifications").json()
    assert prefs["email_your_move"] is True and prefs["email_verified"] is True
    changed = bob.client.patch(
        f"{API}/accounts/me/notifications",
        {"email_your_move": False, "email_match_finished": False},
        format="json",
    )
    assert changed.status_code == 200 and changed.json()["email_your_move"] is False
    bad = bob.client.patch(f"{API}/accounts/me/notifications", {"email_all": 1}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "validation_error"
    with django_capture_on_commit_callbacks(execute=True):
        match_id = start_match("gops", [alice, bob], **GOPS3)
        alice.post(f"/matches/{match_id}/resign")
    assert [m.subject for m in _to("bob@example.com")] == ["Facedown: alice invited you to gops"]


def test_a_notification_is_mailed_once_however_often_its_job_runs(
    mailed: tuple[Player, Player],
) -> None:
    alice, _ = mailed
    item = {
        "id": "invited:x:1:1",
        "type": "invited",
        "match": "6f1c2a9e-0000-4000-8000-000000000000",
        "at": "2026-11-22T20:00:00Z",
        "game": "gops",
        "by": "bob",
        "user": alice.user.pk,
    }
    assert mail_notifications([item]) == 1
    assert mail_notifications([item]) == 0
    assert len(mail.outbox) == 1 and MailItem.objects.count() == 1


def test_mails_do_not_depend_on_a_sealed_move(
    mailed: tuple[Player, Player], jobs: Jobs, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = mailed
    match_id = start_match("gops", [alice, bob], **GOPS3, disclose_submitted=False)
    NotificationSettings.objects.update(your_move_mailed_at=None)

    def playing(card: int) -> Any:
        def play() -> list[tuple[str, str]]:
            mail.outbox.clear()
            NotificationSettings.objects.update(your_move_mailed_at=None)
            with django_capture_on_commit_callbacks(execute=True):
                alice.move(match_id, 1, {"card": card})
                bob.move(match_id, 1, {"card": 2})
            return [(m.subject, m.body) for m in mail.outbox]

        return play

    first, second = alternatives(playing(1), playing(3))
    assert first == second and len(first) == 2
