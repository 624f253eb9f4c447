"""The match lock reads each seat's player name with the seats (games/locks.py): a change that
shows names (the start of a match, a series, the audit) queries no user row per seat."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.locks import match_lock_with_seats
from games.models import Match
from games.services.matches import match_join
from tests.players import Player, make_player

pytestmark = pytest.mark.django_db(transaction=True)


def _invite(host: Player, *guests: Player) -> str:
    created = host.create("hols-der-geier", ["me", *({"user": g.name} for g in guests)])
    assert created.status_code == 201, created.content
    return str(created.json()["id"])


def test_joining_the_last_seat_starts_the_match_without_a_query_per_seat() -> None:
    host, *guests = [make_player() for _ in range(4)]
    match_id = _invite(host, *guests)
    for guest in guests[:-1]:
        match_join(match_id=match_id, user=guest.user, client_seed="s")
    with CaptureQueriesContext(connection) as queries:
        match_join(match_id=match_id, user=guests[-1].user, client_seed="s")
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE
    user_reads = [q["sql"] for q in queries if 'FROM "accounts_user"' in q["sql"]]
    assert user_reads == [], user_reads
    # ... and the names the start showed are the players' names, in seat order.
    started = host.events(match_id)["results"]
    seats = next(e for e in started if e["type"] == "match_started")["data"]["seats"]
    assert [s["player"] for s in seats] == [p.name for p in (host, *guests)]


def test_a_changed_seat_forgets_the_name_read_with_the_lock() -> None:
    alice, bob, carol = make_player(), make_player(), make_player()
    match_id = _invite(alice, bob)
    _, seats = match_lock_with_seats(match_id)
    assert seats[1].user.username == bob.name
    seats[1].user_id = carol.user.pk  # Django drops the cached row when the id changes
    assert seats[1].user.username == carol.name
    seats[1].user = alice.user
    assert seats[1].user.username == alice.name
    # Every other field of the lock's user row is read on first use, like any deferred field.
    _, seats = match_lock_with_seats(match_id)
    assert seats[0].user.email == alice.user.email
    assert seats[0].user.is_active is True
