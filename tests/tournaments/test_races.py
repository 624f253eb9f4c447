"""Races on real threads and PostgreSQL: two registrations for the last place; the last two
matches of a round finishing at once (the next round is opened exactly once)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from core.errors import TournamentFull
from games.catalog import get_engine
from games.models import Match, Seat
from games.services.moves import move_submit
from tests.tournaments.driver import running_matches, tournament, users
from tournaments.models import Entry, TournamentRound
from tournaments.services.entries import tournament_join
from tournaments.services.lifecycle import match_finished, tournament_start

pytestmark = pytest.mark.django_db(transaction=True)
JOIN_SECONDS = 30


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls on their own threads, released together; results (or exceptions)."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=JOIN_SECONDS)
            results[index] = calls[index]()
        except BaseException as exc:
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_SECONDS)
    assert not any(thread.is_alive() for thread in threads), "a racing call hung"
    return results


def test_two_registrations_for_the_last_place():
    organiser, *players = users(6)
    cup = tournament(organiser, players[:3], max_players=4)
    late = players[3:]
    assert len(late) == 2
    results = race([lambda u=u: tournament_join(tournament_id=cup.pk, user=u) for u in late])
    assert sum(isinstance(r, Entry) for r in results) == 1, results
    assert sum(isinstance(r, TournamentFull) for r in results) == 1, results
    assert Entry.objects.filter(tournament=cup, joined=True).count() == 4


def _one_move_from_the_end(match: Match) -> tuple[Any, int, dict[str, Any]]:
    """Play the match until one move would finish it; return that move (player, step, move).
    Each candidate move is tried in a savepoint that is rolled back."""
    engine = get_engine(match.game)
    assert engine is not None
    for _ in range(100):
        match.refresh_from_db()
        seat = next(
            s
            for s in Seat.objects.filter(match=match).select_related("user")
            if s.awaited_in(match)
        )
        move = engine.legal_moves(match.state, seat.index)[0]
        with transaction.atomic():
            move_submit(match_id=match.pk, user=seat.user, step=match.step, move=move)
            finishes = Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
            transaction.set_rollback(True)
        if finishes:
            return seat.user, match.step, move
        move_submit(match_id=match.pk, user=seat.user, step=match.step, move=move)
    raise AssertionError("the match did not come near its end")


def test_the_last_two_matches_finishing_at_once_open_the_next_round_once():
    now = timezone.now()
    organiser, *players = users(5)
    cup = tournament(organiser, players, now=now, format="swiss", rounds=2)
    tournament_start(tournament_id=cup.pk, now=now)
    first, second = running_matches(cup.pk)
    last_moves = [(m, *_one_move_from_the_end(m)) for m in (first, second)]

    def finish(match: Match, user: Any, step: int, move: dict[str, Any]) -> bool:
        move_submit(match_id=match.pk, user=user, step=step, move=move)
        # What the job each finish leaves does, on the same worker.
        return match_finished(match_id=match.pk)

    results = race([lambda args=args: finish(*args) for args in last_moves])
    assert not any(isinstance(r, BaseException) for r in results), results
    numbers = TournamentRound.objects.filter(tournament=cup).values_list("number", flat=True)
    assert sorted(numbers) == [1, 2]
    assert len(running_matches(cup.pk)) == 2  # round 2's matches, created once
    assert cup.events.filter(type="round_started").count() == 2
