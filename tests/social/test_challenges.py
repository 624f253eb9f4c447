"""Challenges and bulk pairings over the API: accept, decline with a reason, cancel, expiry,
house bots, open challenges, and answers racing on the real PostgreSQL resolving one way."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import Match, Seat
from social.models import Challenge
from tests.api.test_concurrency import race
from tests.players import API, Player, make_player

GOPS3 = {"game": "gops", "options": {"num_cards": 3}}


def challenge(player: Player, **extra: Any) -> dict[str, Any]:
    answer = player.post("/challenges", {**GOPS3, **extra})
    assert answer.status_code == 201, answer.content
    body: dict[str, Any] = answer.json()
    return body


@pytest.mark.django_db
def test_a_challenge_accepted_starts_the_match() -> None:
    alice, bob = make_player(), make_player()
    sent = challenge(alice, to=bob.name, rated=False, expires_in=3600)
    assert sent["status"] == "pending" and sent["to"] == bob.name and sent["match_id"] is None
    assert [c["id"] for c in bob.get("/challenges").json()["incoming"]] == [sent["id"]]
    assert [c["id"] for c in alice.get("/challenges").json()["outgoing"]] == [sent["id"]]
    accepted = bob.post(f"/challenges/{sent['id']}/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    match = bob.match(accepted.json()["match_id"])
    assert match["status"] == "active" and match["rated"] is False
    assert [s["player"] for s in match["seats"]] == [alice.name, bob.name]
    again = bob.post(f"/challenges/{sent['id']}/accept")
    assert (again.status_code, again.json()["code"]) == (409, "challenge_closed")
    assert bob.get("/challenges").json()["incoming"] == []


@pytest.mark.django_db
def test_declined_with_a_reason_canceled_or_expired_it_is_closed() -> None:
    alice, bob, carol = make_player(), make_player(), make_player()
    first = challenge(alice, to=bob.name)
    assert carol.post(f"/challenges/{first['id']}/decline").status_code == 404  # not hers
    bad = bob.post(f"/challenges/{first['id']}/decline", {"reason": "boring"})
    assert bad.status_code == 400
    declined = bob.post(f"/challenges/{first['id']}/decline", {"reason": "too_fast"})
    assert declined.json()["status"] == "declined"
    assert declined.json()["decline_reason"] == "too_fast"
    second = challenge(alice, to=bob.name)
    assert bob.post(f"/challenges/{second['id']}/cancel").status_code == 404  # not his
    assert alice.post(f"/challenges/{second['id']}/cancel").json()["status"] == "canceled"
    assert bob.post(f"/challenges/{second['id']}/accept").status_code == 409
    third = challenge(alice, to=bob.name)
    Challenge.objects.filter(pk=third["id"]).update(expires_at=timezone.now() - timedelta(1))
    assert alice.get(f"/challenges/{third['id']}").json()["status"] == "expired"
    late = bob.post(f"/challenges/{third['id']}/accept")
    assert (late.status_code, late.json()["detail"]) == (409, "The challenge is expired.")
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_a_house_bot_accepts_at_once_and_an_open_challenge_anyone() -> None:
    alice, bob = make_player(), make_player()
    house = challenge(alice, house_bot="expert", game="hols-der-geier", options={}, seats=3)
    assert house["status"] == "accepted"
    match = alice.match(house["match_id"])
    assert match["status"] == "active" and len(match["seats"]) == 3
    assert [s["controlled_by"] for s in match["seats"]] == ["player", "bot", "bot"]
    open_one = challenge(alice)
    assert [c["id"] for c in bob.get("/challenges").json()["open"]] == [open_one["id"]]
    own = alice.post(f"/challenges/{open_one['id']}/accept")
    assert own.status_code == 403
    assert bob.post(f"/challenges/{open_one['id']}/accept").json()["status"] == "accepted"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body, field",
    [
        ({"game": "chess"}, "game"),
        ({**GOPS3, "to": "nobody-here"}, "to"),
        ({**GOPS3, "house_bot": "genius"}, "house_bot.bot"),
        ({**GOPS3, "seats": 1}, "seats"),
        ({**GOPS3, "rated": "yes"}, "rated"),
        ({**GOPS3, "expires_in": 5}, "expires_in"),
    ],
)
def test_a_bad_challenge_is_refused_and_changes_nothing(body: Any, field: str) -> None:
    alice = make_player()
    answer = alice.post("/challenges", body)
    assert answer.status_code == 400 and field in answer.json()["errors"], answer.json()
    assert not Challenge.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_answers_racing_resolve_one_way() -> None:
    for round_ in range(3):
        alice = make_player(f"host{round_}")
        bob, carol = make_player(f"taker{round_}a"), make_player(f"taker{round_}b")
        open_one = challenge(alice)
        accept = f"{API}/challenges/{open_one['id']}/accept"
        answers = race([lambda client, url=accept: client.post(url)] * 2, [bob, carol])
        assert sorted(a.status for a in answers) == [200, 409], [a.body for a in answers]
        assert Match.objects.filter(created_by=alice.user).count() == 1
        direct = challenge(alice, to=bob.name)
        accept = f"{API}/challenges/{direct['id']}/accept"
        cancel = f"{API}/challenges/{direct['id']}/cancel"
        answers = race(
            [
                lambda client, url=accept: client.post(url),
                lambda client, url=cancel: client.post(url),
            ],
            [bob, alice],
        )
        assert sorted(a.status for a in answers) == [200, 409]
        status = Challenge.objects.get(pk=direct["id"]).status
        made = Match.objects.filter(created_by=alice.user).count()
        assert (status, made) in (("accepted", 2), ("canceled", 1))


@pytest.mark.django_db
def test_a_bulk_pairing_invites_everyone_and_starts_each_match_on_consent() -> None:
    organiser = make_player()
    players = [make_player() for _ in range(4)]
    pairs = [[players[0].name, players[1].name], [players[2].name, players[3].name]]
    made = organiser.post("/bulk-pairings", {**GOPS3, "pairings": pairs})
    assert made.status_code == 201, made.content
    first, second = made.json()["matches"]
    assert players[0].match(first)["status"] == "open"  # nobody plays without consent
    assert not Seat.objects.filter(user=organiser.user).exists()
    for player in players[:2]:
        assert player.post(f"/matches/{first}/join").status_code == 200
    assert players[0].match(first)["status"] == "active"
    assert players[3].post(f"/matches/{second}/decline", {"reason": "nap"}).status_code == 400
    assert players[3].post(f"/matches/{second}/decline", {"reason": "too_slow"}).status_code == 200
    assert players[2].match(second)["status"] == "aborted"
    (aborted,) = [e for e in players[2].events(second)["results"] if e["type"] == "match_aborted"]
    assert aborted["data"]["decline_reason"] == "too_slow" and aborted["data"]["seat"] == 1
    unknown = organiser.post("/bulk-pairings", {**GOPS3, "pairings": [pairs[0], ["ghost", "x"]]})
    assert unknown.status_code == 400 and "pairings.1.seats.0.user" in unknown.json()["errors"]
    assert Match.objects.count() == 2  # all or none
    too_many = organiser.post("/bulk-pairings", {**GOPS3, "pairings": [pairs[0]] * 501})
    assert too_many.status_code == 400
