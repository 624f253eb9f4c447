"""Each format played to the end by players moving through games' services."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from django.utils import timezone

from tests.tournaments.driver import HOLS, play_out, tournament, users
from tournaments.models import TournamentBye, TournamentMatch
from tournaments.services.lifecycle import tournament_start
from tournaments.services.reads import (
    tournament_crosstable,
    tournament_rounds,
    tournament_standings,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _meetings(tournament_id) -> Counter:
    met: Counter = Counter()
    for table in TournamentMatch.objects.filter(round__tournament_id=tournament_id):
        for a, b in combinations(sorted(table.players), 2):
            met[(a, b)] += 1
    return met


def test_swiss_gops_nine_players():
    now = timezone.now()
    organiser, *players = users(10)
    cup = tournament(organiser, players, now=now, format="swiss", rounds=4)
    done = play_out(cup.pk, now=now)
    assert done.current_round == 4 and done.finished_at is not None
    # Nine players, two seats: one bye a round, never twice to the same player in four rounds.
    byes = Counter(
        TournamentBye.objects.filter(round__tournament=cup).values_list("user_id", flat=True)
    )
    assert sum(byes.values()) == 4 and max(byes.values()) == 1
    assert max(_meetings(cup.pk).values()) == 1  # no repeat pairing
    standings = tournament_standings(cup.pk)
    assert [row["rank"] for row in standings["rows"]] == list(range(1, 10))
    assert sum(row["played"] for row in standings["rows"]) == 2 * 4 * 4
    assert all(t["result"] is not None for r in tournament_rounds(cup.pk) for t in r["tables"])
    assert len(tournament_crosstable(cup.pk)["players"]) == 9


def test_round_robin_hols_four_seats_eight_players():
    now = timezone.now()
    organiser, *players = users(9)
    cup = tournament(organiser, players, now=now, format="round_robin", **HOLS)
    done = play_out(cup.pk, now=now)
    assert done.status == "finished"
    met = _meetings(cup.pk)
    ids = sorted(u.pk for u in players)
    assert set(met) == set(combinations(ids, 2))  # everyone met everyone
    assert max(met.values()) - min(met.values()) <= 2


def test_knockout_gops_thirteen_players():
    now = timezone.now()
    organiser, *players = users(14)
    cup = tournament(organiser, players, now=now, format="knockout", knockout_draws="replay")
    done = play_out(cup.pk, now=now)
    assert done.status == "finished" and done.rounds == 4
    rounds = tournament_rounds(cup.pk)
    # 13 players: three byes in the first round, then 8, 4, 2 and 1 left.
    assert len(rounds[0]["byes"]) == 3
    alive = 13
    for played in rounds:
        decisive = {tuple(sorted(t["players"])) for t in played["tables"]}
        alive = len(decisive) + len(played["byes"])
        assert all(len(t["players"]) == 2 for t in played["tables"])
    assert alive == 1


def test_double_round_robin_small():
    now = timezone.now()
    organiser, *players = users(4)
    cup = tournament(organiser, players, now=now, format="double_round_robin")
    done = play_out(cup.pk, now=now)
    assert done.status == "finished" and done.rounds == 6
    assert set(_meetings(cup.pk).values()) == {2}
    seats = Counter(
        (table.players[0], table.players[1])
        for table in TournamentMatch.objects.filter(round__tournament=cup)
    )
    assert max(seats.values()) == 1  # the return game swaps the seats


def test_no_table_is_smaller_than_the_game_allows():
    now = timezone.now()
    organiser, *players = users(6)
    cup = tournament(organiser, players, now=now, game="xato", options={}, seats=4)
    tournament_start(tournament_id=cup.pk, now=now)
    tables = list(TournamentMatch.objects.filter(round__tournament=cup))
    byes = TournamentBye.objects.filter(round__tournament=cup).count()
    # Five players at Xato (3 to 6 seats): one table of four and a bye, never one of two.
    assert [len(t.players) for t in tables] == [4] and byes == 1
    assert all(t.match_id is not None for t in tables)
