"""The unit of work: one transaction, one write, follow-ups only after a commit.

Given a started match, when a service body changes it through ``match_change``, then the
match, its seats, new and updated moves and new events are written together (one statement on
PostgreSQL), nothing is written for a body that changes nothing, and nothing is written or
scheduled for a body that raises.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import events
from games.events import InvalidEvent
from games.models import Match, MatchEvent, Move, Seat
from games.services.unit_of_work import match_change
from tests.players import Player, start_match
from tests.roundtrips import count_round_trips


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def test_seat_move_and_match_changes_are_one_statement(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    alice.move(match_id, 1, {"card": 3})
    recorded = Move.objects.get(match_id=match_id, step=1, seat=0)
    with count_round_trips() as trips, match_change(match_id) as tx:
        tx.seats[1].bot_memory = {"seen": [1, 2]}
        tx.update_move(recorded, source=Move.Source.BOT)
        tx.emit(events.SEAT_LEFT({"seat": 1}))
    # BEGIN + the lock + the one write + COMMIT
    assert trips.count == 4, trips
    assert "WITH write_0 AS" in trips.messages[2]
    assert Seat.objects.get(match_id=match_id, index=1).bot_memory == {"seen": [1, 2]}
    assert Move.objects.get(pk=recorded.pk).source == Move.Source.BOT
    match = Match.objects.get(pk=match_id)
    assert match.version == tx.match.version and match.last_seq == tx.match.last_seq
    assert MatchEvent.objects.get(match_id=match_id, seq=match.last_seq).type == "seat_left"


def test_a_body_that_changes_nothing_writes_nothing(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    before = Match.objects.get(pk=match_id).version
    with count_round_trips() as trips, match_change(match_id) as tx:
        assert tx.match.step == 1
    assert trips.count == 3, trips  # BEGIN, the lock, COMMIT
    assert not tx.wrote
    assert Match.objects.get(pk=match_id).version == before


def test_a_body_that_raises_writes_and_schedules_nothing(alice: Player, bob: Player, settings):
    settings.FACEDOWN_TASK_RUNNER = "celery"  # would enqueue on commit, if anything committed
    match_id = start_match("gops", [alice, bob])
    before = Match.objects.get(pk=match_id)
    scheduled = list(connection.run_on_commit)  # the start's own (its notifications)
    with pytest.raises(RuntimeError), match_change(match_id) as tx:
        tx.seats[0].forfeited = True
        tx.match.deadline = tx.now
        tx.emit(events.SEAT_FORFEITED({"seat": 0, "reason": "resigned"}), step=1)
        raise RuntimeError("refused")
    after = Match.objects.get(pk=match_id)
    assert (after.version, after.last_seq, after.deadline) == (
        before.version,
        before.last_seq,
        before.deadline,
    )
    assert not Seat.objects.get(match_id=match_id, index=0).forfeited
    assert connection.run_on_commit == scheduled


def test_only_changed_fields_are_written(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    with CaptureQueriesContext(connection) as queries, match_change(match_id) as tx:
        tx.seats[0].client_seed = "changed"
    (write,) = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert '"client_seed"' in write and '"forfeited"' not in write
    # No event was emitted: the public version stays.
    assert Match.objects.get(pk=match_id).version == tx.match.version


def test_unknown_event_types_and_wrong_payloads_are_refused(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    stray = events.EventType("seat_danced", events.SeatRef, "Not in the catalogue.")
    with pytest.raises(InvalidEvent, match="not in the catalogue"), match_change(match_id) as tx:
        tx.emit(stray({"seat": 0}))
    with pytest.raises(InvalidEvent, match="seat"), match_change(match_id) as tx:
        tx.emit(events.SEAT_LEFT({"seat": "zero"}))  # type: ignore[typeddict-item]
    with pytest.raises(InvalidEvent, match="Additional properties"), match_change(match_id) as tx:
        tx.emit(events.SEAT_LEFT({"seat": 0, "card": 5}))  # type: ignore[typeddict-unknown-key]
    with pytest.raises(InvalidEvent, match="never table-only"), match_change(match_id) as tx:
        tx.emit(events.SEAT_LEFT({"seat": 0}), table_only=True)
    with pytest.raises(InvalidEvent, match="no private part"), match_change(match_id) as tx:
        tx.emit(events.SEAT_LEFT({"seat": 0}, private={0: {"card": 5}}))
    assert not MatchEvent.objects.filter(match_id=match_id, type="seat_left").exists()
