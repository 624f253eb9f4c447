"""The match lock reads the open step's recorded moves in the same statement (games/locks.py),
so the move that completes a step needs no query for the others' sealed moves. That read comes
from the lock statement's snapshot: a move committed while the statement waited for the lock is
not in it, and ``steps.step_moves`` must then read the moves again. Both paths, on the real
PostgreSQL with a real lock wait."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from games.locks import StepMoves
from games.models import MatchEvent, Move
from games.services import steps
from games.services.moves import move_record, move_submit
from games.services.steps import step_moves, submitted_moves
from games.services.unit_of_work import match_change
from tests.players import Player, start_match

pytestmark = pytest.mark.django_db(transaction=True)


def _resolved_bids(match_id: str) -> Any:
    return MatchEvent.objects.get(match_id=match_id, type="step_resolved", step=1).data


def test_the_lock_brings_the_others_moves_and_no_query_reads_them(
    alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    move_submit(match_id=match_id, user=alice.user, step=1, move={"card": 3})
    with match_change(match_id) as tx:
        read = tx.step_moves_read
        assert read is not None and read.step == 1 and read.payloads == {0: {"card": 3}}
        with CaptureQueriesContext(connection) as queries:
            assert step_moves(tx) == {0: {"card": 3}}
        assert len(queries) == 0


def test_moves_the_lock_did_not_see_are_read_again(alice: Player, bob: Player) -> None:
    """As if the lock statement's snapshot predated alice's move (StepMoves without it)."""
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    move_submit(match_id=match_id, user=alice.user, step=1, move={"card": 3})
    with match_change(match_id) as tx:
        tx.step_moves_read = StepMoves(step=1, payloads={})
        with CaptureQueriesContext(connection) as queries:
            assert step_moves(tx) == {0: {"card": 3}}
        assert len(queries) == 1 and Move._meta.db_table in queries[0]["sql"]


def _waiting_for_a_lock(pid: int) -> bool:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


def test_a_move_that_waited_for_the_lock_resolves_with_the_move_committed_meanwhile(
    alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice's move holds the lock; bob's move waits for it, its statement's snapshot taken
    before alice commits. Bob's move then reads the moves again and completes the step with
    both cards."""
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    read_again: list[Any] = []

    def counted(match: Any) -> Any:
        read_again.append(match.pk)
        return submitted_moves(match)

    monkeypatch.setattr(steps, "submitted_moves", counted)
    bob_pid: list[int] = []
    errors: list[BaseException] = []

    def bobs_move() -> None:
        try:
            bob_pid.append(connection.cursor().connection.info.backend_pid)
            move_submit(match_id=match_id, user=bob.user, step=1, move={"card": 5})
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=bobs_move)
    with match_change(match_id) as tx:  # alice's move, holding the lock until it commits
        move_record(tx, seat=0, move={"card": 2}, source=Move.Source.PLAYER)
        thread.start()
        deadline = time.monotonic() + 10
        while not (bob_pid and _waiting_for_a_lock(bob_pid[0])):
            assert time.monotonic() < deadline, "bob's move never waited for the lock"
            time.sleep(0.01)
    thread.join(10)
    assert not thread.is_alive() and not errors, errors
    assert read_again == [uuid.UUID(match_id)]  # the lock's snapshot lacked alice's move
    assert _resolved_bids(match_id)["bids"] == [2, 5]
    recorded = Move.objects.filter(match_id=match_id, step=1).values_list("seat", "payload")
    assert sorted((seat, payload["card"]) for seat, payload in recorded) == [(0, 2), (1, 5)]
