"""Arena races on real threads and PostgreSQL: two waves at once, a player leaving while being
paired, the last match ending at the window's close."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import Match
from games.services.moves import move_submit
from tests.tournaments.driver import running_matches, tournament, users
from tests.tournaments.test_races import _one_move_from_the_end, race
from tournaments.models import Entry, Tournament, TournamentMatch
from tournaments.services.arena import arena_wave, arena_waves
from tournaments.services.entries import tournament_join, tournament_withdraw
from tournaments.services.lifecycle import match_finished, tournament_start

pytestmark = pytest.mark.django_db(transaction=True)
ARENA = {
    "format": "arena",
    "arena_minutes": 30,
    "time_control": {
        "kind": "fischer",
        "initial_seconds": 300,
        "increment_seconds": 5,
        "max_seconds": 600,
    },
}


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _open_arena(count: int) -> tuple[Tournament, list[Any], Any]:
    """An arena started with nobody in it, then ``count`` players joined: all free."""
    now = timezone.now()
    organiser, *players = users(count + 1)
    arena = tournament(organiser, [], now=now, **ARENA)
    tournament_start(tournament_id=arena.pk, by=organiser, now=now)
    for user in players:
        tournament_join(tournament_id=arena.pk, user=user, now=now)
    return Tournament.objects.get(pk=arena.pk), players, now


def _seated(arena: Tournament) -> list[int]:
    rows = TournamentMatch.objects.filter(round__tournament=arena, ranking__isnull=True)
    return [p for players in rows.values_list("players", flat=True) for p in players]


def test_two_waves_at_once_seat_each_player_once():
    arena, players, now = _open_arena(10)
    later = now + timedelta(seconds=2)
    results = race(
        [
            lambda: arena_wave(tournament_id=arena.pk, now=later),
            lambda: arena_wave(tournament_id=arena.pk, now=later),
        ]
    )
    assert sorted(results) == [0, 5], results  # the second found nobody free
    seated = _seated(arena)
    assert sorted(seated) == sorted(u.pk for u in players)


def test_a_player_leaving_while_being_paired_is_seated_only_if_the_wave_came_first():
    arena, players, now = _open_arena(4)
    leaver = players[0]
    later = now + timedelta(seconds=2)
    results = race(
        [
            lambda: arena_wave(tournament_id=arena.pk, now=later),
            lambda: tournament_withdraw(tournament_id=arena.pk, user=leaver, now=later),
        ]
    )
    assert not any(isinstance(r, BaseException) for r in results), results
    assert Entry.objects.get(tournament=arena, user=leaver).status == Entry.Status.WITHDRAWN
    seated = _seated(arena)
    order = {e.type: e.seq for e in arena.events.filter(type__in=("paired", "withdrew"))}
    # The wave first: all four seated, the leaver plays the match out. The leave first: the
    # other three were free, two of them seated.
    wave_first = order["paired"] < order["withdrew"]
    assert len(seated) == len(set(seated)) == (4 if wave_first else 2)
    assert (leaver.pk in seated) == wave_first
    # Either way, the next wave does not seat them again.
    arena_wave(tournament_id=arena.pk, now=later + timedelta(seconds=2))
    assert _seated(arena).count(leaver.pk) == (leaver.pk in seated)


def test_the_last_match_ending_at_the_windows_close_counts_and_finishes_once():
    arena, _, now = _open_arena(2)
    arena_wave(tournament_id=arena.pk, now=now + timedelta(seconds=2))
    (match,) = running_matches(arena.pk)
    user, step, move = _one_move_from_the_end(match)
    end = arena.ends_at
    assert end is not None

    def last_move() -> bool:  # the window closes as the last move lands
        move_submit(match_id=match.pk, user=user, step=step, move=move)
        return match_finished(match_id=match.pk, now=end)

    results = race([last_move, lambda: arena_waves(now=end)])
    assert not any(isinstance(r, BaseException) for r in results), results
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    # Whichever locked the arena first, the finished match's own wave runs after its move.
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.FINISHED
    assert arena.events.filter(type="finished").count() == 1
    table = TournamentMatch.objects.get(match=match)
    assert table.ranking is not None  # it counts
    entries = Entry.objects.filter(tournament=arena)
    assert sum(e.points for e in entries) == 2  # a win 2 + 0, or a draw 1 + 1
