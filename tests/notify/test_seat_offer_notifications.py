"""The invitee of a seat offered to a substitute hears of it: on every channel (the recorder
stands for them), by mail unless the invitations' preference is off; nobody else does."""

from __future__ import annotations

from typing import Any

from django.core import mail

from tests.notify.conftest import Jobs, Recorder, verify
from tests.players import Player, make_player, start_match

SLOW = {"time_control": {"per_step_seconds": 2 * 24 * 3600}, "options": {"num_cards": 5}}


def _left(alice: Player, bob: Player, carol: Player) -> str:
    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    return match_id


def test_the_invitee_alone_hears_of_the_offered_seat(
    alice: Player,
    bob: Player,
    carol: Player,
    recorded: Recorder,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"
    match_id = _left(alice, bob, carol)
    dave = make_player()
    recorded.clear()
    with django_capture_on_commit_callbacks(execute=True):
        offer = alice.post(f"/matches/{match_id}/substitutes", {"seat": 2, "invitee": dave.name})
    assert offer.status_code == 201, offer.content
    assert [(n.type, n.user_id) for n in recorded] == [("seat_offered", dave.user.pk)]
    assert recorded[0].data == {
        "game": "gops",
        "offer": offer.json()["id"],
        "seat": 2,
        "by": alice.name,
    }
    recorded.clear()
    with django_capture_on_commit_callbacks(execute=True):
        open_seat = bob.post(f"/matches/{match_id}/substitutes/{offer.json()['id']}/withdraw")
        assert open_seat.status_code == 200
        assert bob.post(f"/matches/{match_id}/substitutes", {"seat": 2}).status_code == 201
    assert recorded == []  # an open seat is listed in the lobby, not sent to anyone


def test_the_offer_is_mailed_unless_invitations_are_off(
    alice: Player,
    bob: Player,
    carol: Player,
    jobs: Jobs,
    django_capture_on_commit_callbacks: Any,
) -> None:
    match_id = _left(alice, bob, carol)
    dave = make_player()
    dave.user.email = "dave@example.com"
    dave.user.save()
    verify(dave.user)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        made = alice.post(f"/matches/{match_id}/substitutes", {"seat": 2, "invitee": dave.name})
    (offered,) = mail.outbox
    assert offered.to == ["dave@example.com"]
    assert offered.subject == f"Facedown: {alice.name} offers you a seat in gops"
    assert match_id in offered.body
    off = dave.client.patch(
        "/api/v1/accounts/me/notifications", {"email_invited": False}, format="json"
    )
    assert off.status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        bob.post(f"/matches/{match_id}/substitutes/{made.json()['id']}/withdraw")
        bob.post(f"/matches/{match_id}/substitutes", {"seat": 2, "invitee": dave.name})
    assert len(mail.outbox) == 1
