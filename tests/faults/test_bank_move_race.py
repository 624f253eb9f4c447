"""A player's move arriving just as their Fischer bank runs out, racing the expiry on real
PostgreSQL from two threads: one wins the match lock, and the other sees what it did. Either
the move is recorded and the seat is not timed out, or the seat timed out (the stand-in moved)
and the move is refused with a problem code; never both, never neither.

``move_submit`` takes the wall clock as its ``now``, so the bank is set to run out a few
seconds ahead (``tests.clocks.runs_out_at``) and the expiry is given that instant: the move is
on time by the wall clock, the expiry is due by its own, and the lock decides.

The player posts the very card the stand-in (greedy) picks, the prize's value: a refused move
must be refused even when it equals what the stand-in recorded for the seat.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from core.errors import FacedownError
from games.models import Match, MatchEvent, Move
from games.services.deadlines import step_expire
from games.services.moves import move_submit
from tests.clocks import runs_out_at
from tests.players import Player, make_player, start_match

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 8
FISCHER = {"kind": "fischer", "initial_seconds": 600, "increment_seconds": 30, "max_seconds": 900}


def _players() -> list[Player]:
    players = [make_player() for _ in range(3)]
    for player in players:  # plain timeouts (the banks are under a day anyway)
        player.user.auto_vacation = False
        player.user.save(update_fields=["auto_vacation"])
    return players


def _match(players: list[Player], runs_out: datetime) -> tuple[str, dict[str, int]]:
    """A 3-player GOPS where seat 0 has moved, seat 1's bank runs out at ``runs_out`` and seat
    2's an hour later; returns the match and the card the stand-in would play for seat 1."""
    match_id = start_match(
        "gops",
        players,
        options={"num_cards": 5},
        time_control={**FISCHER, "on_timeout": "auto_move"},
    )
    assert players[0].move(match_id, 1, {"card": 1}).status_code == 202
    deadline = runs_out_at(match_id, {1: runs_out, 2: runs_out + timedelta(hours=1)})
    assert deadline == runs_out
    prize = sum(players[1].match(match_id)["view"]["pot"])
    return match_id, {"card": prize}


def _outcome(match_id: str) -> tuple[list[str], int]:
    sources = list(
        Move.objects.filter(match_id=match_id, step=1, seat=1).values_list("source", flat=True)
    )
    timeouts = sum(
        (event.data or {}).get("seat") == 1
        for event in MatchEvent.objects.filter(match_id=match_id, type="timeout", step=1)
    )
    return sources, timeouts


def _race(
    match_id: str, player: Player, card: dict[str, int], runs_out: datetime
) -> dict[str, Any]:
    """The player's move and the expiry at ``runs_out``, released at once from two threads."""
    start = threading.Barrier(2)
    results: dict[str, Any] = {}

    def submit() -> None:
        try:
            start.wait(5)
            results["move"] = move_submit(match_id=match_id, user=player.user, step=1, move=card)
        except FacedownError as exc:
            results["move"] = exc
        finally:
            connection.close()

    def expire() -> None:
        try:
            start.wait(5)
            results["expire"] = step_expire(match_id=match_id, step=1, now=runs_out)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit), threading.Thread(target=expire)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_a_move_racing_its_banks_expiry_is_either_recorded_or_refused() -> None:
    players = _players()
    seen: dict[str, int] = {"move": 0, "timeout": 0}
    for _ in range(ROUNDS):
        runs_out = timezone.now() + timedelta(seconds=5)
        match_id, card = _match(players, runs_out)
        results = _race(match_id, players[1], card, runs_out)
        assert timezone.now() < runs_out, "the round took too long to be a race at the deadline"

        sources, timeouts = _outcome(match_id)
        move = results["move"]
        if isinstance(move, FacedownError):  # the expiry won
            assert move.code in {"already_submitted", "stale_step"}, move
            assert results["expire"] is True
            assert (sources, timeouts) == (["timeout"], 1)
            seen["timeout"] += 1
        else:  # the move won
            assert not move.repeated, move
            assert results["expire"] is False
            assert (sources, timeouts) == (["player"], 0)
            seen["move"] += 1
        match = Match.objects.get(pk=match_id)
        assert match.step == 1 and match.submitted_mask == 0b011
        assert match.deadline == runs_out + timedelta(hours=1)  # seat 2's clock, untouched
    print(f"\nrace outcomes over {ROUNDS} rounds: {seen}")
    assert sum(seen.values()) == ROUNDS


def test_a_move_after_the_timeout_is_refused_even_if_it_equals_the_stand_ins() -> None:
    """The lock order fixed: the expiry first, then the player's move with the stand-in's card."""
    players = _players()
    runs_out = timezone.now() + timedelta(seconds=30)
    match_id, card = _match(players, runs_out)
    assert step_expire(match_id=match_id, step=1, now=runs_out)
    assert Move.objects.get(match_id=match_id, step=1, seat=1).payload == card
    with pytest.raises(FacedownError) as refused:
        move_submit(match_id=match_id, user=players[1].user, step=1, move=card)
    assert refused.value.code == "already_submitted"
    assert _outcome(match_id) == (["timeout"], 1)


def test_a_move_just_before_the_expiry_leaves_nothing_to_expire() -> None:
    """The other order: the move first; the due expiry then times out no one."""
    players = _players()
    runs_out = timezone.now() + timedelta(seconds=30)
    match_id, card = _match(players, runs_out)
    accepted = move_submit(match_id=match_id, user=players[1].user, step=1, move=card)
    assert not accepted.repeated
    assert step_expire(match_id=match_id, step=1, now=runs_out) is False
    assert _outcome(match_id) == (["player"], 0)
    assert Match.objects.get(pk=match_id).deadline == runs_out + timedelta(hours=1)
