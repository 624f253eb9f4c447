"""The seek queue over the API: pairing first come first served, cancel, expiry, and two
seeks racing on the real PostgreSQL pairing exactly once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match, MatchEvent, Rating
from social.models import Seek
from tests.api.test_concurrency import race
from tests.players import API, make_player

GOPS3 = {"game": "gops", "players": 2, "options": {"num_cards": 3}}


def seek(player, **extra):
    return player.post("/seeks", {**GOPS3, **extra})


def test_two_equal_seeks_pair_into_a_started_match(alice, bob):
    first = seek(alice, client_seed="alice-entropy")
    assert first.status_code == 201, first.content
    assert first.json()["status"] == "open" and first.json()["match"] is None
    listed = bob.get("/seeks?game=gops").json()["results"]
    assert [s["player"] for s in listed] == ["alice"]

    second = seek(bob)
    assert second.status_code == 201, second.content
    body = second.json()
    assert body["status"] == "matched"
    match = bob.match(body["match"])
    assert match["status"] == "active"
    assert [s["player"] for s in match["seats"]] == ["alice", "bob"]  # first come, seat 0
    assert match["options"]["num_cards"] == 3
    assert alice.get(f"/seeks/{first.json()['id']}").json()["match"] == body["match"]
    assert bob.get("/seeks").json()["results"] == []
    # Made through the unit of work: created, both joins, started, as for any match.
    types = list(
        MatchEvent.objects.filter(match_id=body["match"])
        .order_by("seq")
        .values_list("type", flat=True)
    )
    assert types[:4] == ["match_created", "seat_joined", "seat_joined", "match_started"]
    assert Match.objects.get(pk=body["match"]).seats.get(index=0).client_seed == "alice-entropy"


def test_seeks_pair_only_with_equal_seeks_and_in_order(player):
    a, b, c, d = (player() for _ in range(4))
    assert seek(a).json()["status"] == "open"
    assert seek(b, options={"num_cards": 4}).json()["status"] == "open"  # another pool
    assert seek(c, time_control={"per_step_seconds": 60}).json()["status"] == "open"
    paired = seek(d).json()
    assert paired["status"] == "matched"
    assert [s["player"] for s in d.match(paired["match"])["seats"]] == [a.name, d.name]
    assert {s["player"] for s in d.get("/seeks").json()["results"]} == {b.name, c.name}


def test_three_player_seeks_wait_for_the_third(player):
    seekers = [player() for _ in range(3)]
    body = {"game": "hols-der-geier", "players": 3}
    answers = [s.post("/seeks", body).json() for s in seekers]
    assert [a["status"] for a in answers] == ["open", "open", "matched"]
    seats = seekers[2].match(answers[2]["match"])["seats"]
    assert [s["player"] for s in seats] == [s.name for s in seekers]


def test_cancel_a_second_seek_and_bad_input(alice, bob):
    mine = seek(alice).json()
    again = seek(alice)
    assert again.status_code == 409 and again.json()["code"] == "already_seeking"
    assert bob.client.delete(f"{API}/seeks/{mine['id']}").status_code == 404  # not bob's
    assert alice.client.delete(f"{API}/seeks/{mine['id']}").status_code == 204
    assert alice.get(f"/seeks/{mine['id']}").json()["status"] == "cancelled"
    closed = alice.client.delete(f"{API}/seeks/{mine['id']}")
    assert closed.status_code == 409 and closed.json()["code"] == "seek_closed"
    assert seek(bob).json()["status"] == "open"  # alice's cancelled seek is not paired

    for bad in (
        {"players": 9},
        {"game": "chess"},
        {"options": {"num_cards": 99}},
        {"rating_range": {"min": 10, "max": 5}},
        {"rating_range": {"low": 1}},
        {"players": "2"},
        {"colour": "red"},
    ):
        answer = alice.post("/seeks", {**GOPS3, **bad})
        assert answer.status_code == 400, bad
        assert answer.json()["code"] == "validation_error"
    assert Seek.objects.count() == 2


def test_rating_range_admits_newcomers_and_keeps_out_rated_players_outside_it(alice, bob):
    ranged = seek(alice, rating_range={"min": 1200, "max": 2000}).json()
    assert ranged["rating_range"] == {"min": 1200, "max": 2000}
    # The range is in the rating players read: bob's ordinal of 30 shows as 3000 (1500 + 50 x
    # 30), outside alice's range, though 30 lies inside 0 to 2000.
    Rating.objects.create(
        user=bob.user, game="gops", mu=40, sigma=10 / 3, ordinal=30, rated_matches=5
    )
    assert seek(bob).json()["status"] == "open"
    # A rating in another game does not count, nor does a row without a rated match.
    carol = make_player()
    Rating.objects.create(user=carol.user, game="xato", mu=40, sigma=1, ordinal=37, rated_matches=3)
    Rating.objects.create(user=carol.user, game="gops", mu=25, sigma=8, ordinal=1, rated_matches=0)
    paired = seek(carol).json()
    assert paired["status"] == "matched"
    assert [s["player"] for s in carol.match(paired["match"])["seats"]] == ["alice", carol.name]


def test_an_expired_seek_is_not_listed_nor_paired(alice, bob, settings):
    old = seek(alice).json()
    Seek.objects.filter(pk=old["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert alice.get(f"/seeks/{old['id']}").json()["status"] == "expired"
    assert bob.get("/seeks").json()["results"] == []
    assert seek(bob).json()["status"] == "open"
    assert seek(alice).json()["status"] == "matched"  # a new seek of alice's pairs with bob's
    settings.FACEDOWN_SEEK_TTL = 5
    carol = make_player()
    fresh = seek(carol).json()
    expires = timezone.datetime.fromisoformat(fresh["expires_at"])
    assert timedelta(seconds=4) < expires - timezone.now() <= timedelta(seconds=5)


@pytest.mark.django_db(transaction=True)
def test_two_seeks_racing_pair_exactly_once():
    for round_ in range(3):
        players = [make_player(f"racer{round_}a"), make_player(f"racer{round_}b")]
        answers = race(
            [lambda client: client.post(f"{API}/seeks", GOPS3, format="json")] * 2, players
        )
        assert [a.status for a in answers] == [201, 201]
        matched = [a.body["match"] for a in answers if a.body["status"] == "matched"]
        assert len(matched) == 1, answers
        assert Seek.objects.filter(user__in=[p.user for p in players], status="open").count() == 0
        assert set(
            Seek.objects.filter(user__in=[p.user for p in players]).values_list("match", flat=True)
        ) == {Match.objects.get(pk=matched[0]).pk}
