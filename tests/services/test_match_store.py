"""The match store's SQL reads what its querysets read: the same instances, field by field.

On PostgreSQL the store runs its own statements and builds instances with ``Model.from_db``;
the querysets (what SQLite runs) are the reference.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import connection, transaction

from games import match_store
from games.locks import match_lock_for_change
from games.models import Match, MatchEvent, Seat
from tests.players import Player, make_player, start_match

pytestmark = pytest.mark.django_db


def _loaded(obj: Any) -> dict[str, Any]:
    """The fields an instance has loaded (deferred ones are absent), by attname."""
    return {
        f.attname: getattr(obj, f.attname)
        for f in type(obj)._meta.concrete_fields
        if f.attname in obj.__dict__
    }


@pytest.fixture
def played(alice: Player, bob: Player) -> uuid.UUID:
    if connection.vendor != "postgresql":
        pytest.skip("the store's own statements run on PostgreSQL")
    match_id = start_match("gops", [alice, bob])
    assert alice.move(match_id, 1, {"card": 3}).status_code == 202
    assert bob.move(match_id, 1, {"card": 5}).status_code == 202
    assert alice.move(match_id, 2, {"card": 1}).status_code == 202  # recorded, step open
    return uuid.UUID(match_id)


def test_the_lock_reads_what_its_queryset_reads(played: uuid.UUID) -> None:
    with transaction.atomic():
        match, locked = match_store.lock_match_with_seats(played)
        expected = list(match_store.lock_queryset(played))
    assert match is not None and len(locked) == len(expected) == 2
    assert _loaded(match) == _loaded(expected[0].match)
    assert match.state == expected[0].match.state
    for row, seat in zip(locked, expected, strict=True):
        assert _loaded(row.seat) == _loaded(seat)
        assert row.seat.match is match  # one instance for every seat
        assert row.name == getattr(seat, "user_name")  # noqa: B009  (an annotation)
        assert row.offsite == getattr(seat, "user_offsite")  # noqa: B009
        assert row.step_payload == getattr(seat, "step_payload")  # noqa: B009
    assert [row.step_payload for row in locked] == [{"card": 1}, None]


def test_the_change_sees_the_locked_seats_players_by_name(played: uuid.UUID) -> None:
    with transaction.atomic():
        match, seats, moves = match_lock_for_change(played)
    assert moves.step == match.step == 2 and moves.payloads == {0: {"card": 1}}
    for seat in seats:
        user = seat.user
        assert user is not None
        assert set(_loaded(user)) == {"id", "username"}  # the rest deferred, read on use
        assert user.is_active is True  # a deferred field, read from the database


@pytest.mark.parametrize("with_state", [False, True])
def test_the_snapshot_reads_what_its_queryset_reads(played: uuid.UUID, with_state: bool) -> None:
    rows = match_store.snapshot_rows(played, with_state=with_state)
    match_id, version, submitted, seated = rows.etag_columns()
    seats = rows.seats()
    expected = list(match_store.snapshot_queryset(played, with_state))
    reference = expected[0].match
    assert (match_id, version, submitted) == (reference.id, reference.version, 1)
    assert seated == [(seat.index, seat.user_id) for seat in expected]
    assert _loaded(seats[0].match) == _loaded(reference)
    assert ("state" in seats[0].match.__dict__) is with_state
    creator, expected_creator = seats[0].match.created_by, reference.created_by
    assert creator is not None and expected_creator is not None
    assert creator.username == expected_creator.username
    for seat, other in zip(seats, expected, strict=True):
        assert _loaded(seat) == _loaded(other)
        assert seat.match is seats[0].match
        assert (
            _loaded(seat.user)
            == _loaded(other.user)
            == {
                "id": other.user_id,
                "username": other.user.username,
            }
        )


def test_a_missing_match_reads_nothing(played: uuid.UUID) -> None:
    assert not match_store.snapshot_rows(uuid.uuid4(), with_state=False)
    assert match_store.state_read(uuid.uuid4()) is None
    with transaction.atomic():
        assert match_store.lock_match_with_seats(uuid.uuid4()) == (None, [])


def test_an_event_page_holds_the_readers_private_part_only(played: uuid.UUID) -> None:
    match = Match.objects.get(pk=played)
    stored = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    for seat in (0, 1, None):
        rows = match_store.event_rows(match, 0, 500, seat=seat)
        assert [row.seq for row in rows] == [event.seq for event in stored]
        for row, event in zip(rows, stored, strict=True):
            assert (row.type, row.step, row.at, row.show_at, row.data, row.table_only) == (
                event.type,
                event.step,
                event.at,
                event.show_at,
                event.data,
                event.table_only,
            )
            mine = {k: v for k, v in event.private.items() if seat is not None and k == str(seat)}
            assert row.private == mine
    assert match_store.event_rows(match, stored[-1].seq, 10, seat=0) == []


def test_an_empty_seat_reads_no_player() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the store's own statements run on PostgreSQL")
    creator = make_player()
    response = creator.post("/matches", {"game": "gops", "seats": ["me", "open"]})
    assert response.status_code == 201, response.content
    match_id = uuid.UUID(response.json()["id"])
    seats = match_store.snapshot_rows(match_id, with_state=False).seats()
    assert seats[1].user_id is None and seats[1].user is None
    assert Seat.objects.get(match_id=match_id, index=1).user is None
