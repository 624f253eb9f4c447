"""The absent: withdrawals mid-round and between rounds, a disqualification after the
player's games, the round limit (a controlled clock), and round robin's withdrawn games."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from games.catalog import get_engine
from games.models import Match, Rating, Seat
from games.services.deadlines import step_expire
from games.services.moves import move_submit
from tests.tournaments.driver import play_matches, running_matches, tournament, users
from tournaments.models import Entry, Tournament, TournamentMatch
from tournaments.services.entries import player_disqualify, tournament_withdraw
from tournaments.services.lifecycle import (
    round_check,
    round_limit_apply,
    tournament_start,
    tournaments_sweep,
)
from tournaments.services.reads import tournament_events, tournament_standings

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _tables_of(cup, user) -> list[TournamentMatch]:
    return [
        t
        for t in TournamentMatch.objects.filter(round__tournament=cup).order_by("round__number")
        if user.pk in t.players
    ]


def test_a_withdrawal_mid_round_hands_the_seat_to_the_stand_in_and_ends_the_pairings():
    now = timezone.now()
    organiser, *players = users(9)
    cup = tournament(organiser, players, now=now, format="swiss", rounds=3, stand_in_bot="expert")
    tournament_start(tournament_id=cup.pk, now=now)
    leaver = players[0]
    (table,) = _tables_of(cup, leaver)
    tournament_withdraw(tournament_id=cup.pk, user=leaver, now=now)
    seat = Seat.objects.get(match=table.match_id, user=leaver)
    assert seat.controlled_by == Seat.Controller.BOT and seat.bot == "expert"
    rng = random.Random(3)
    play_matches(cup.pk, rng)  # the stand-in plays the leaver's seat to the end
    assert Match.objects.get(pk=table.match_id).status == Match.Status.FINISHED
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=1))
    for _ in range(3):
        play_matches(cup.pk, rng)
        round_check(tournament_id=cup.pk, now=now + timedelta(hours=3))
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.FINISHED
    assert len(_tables_of(cup, leaver)) == 1  # never paired again
    row = next(r for r in tournament_standings(cup.pk)["rows"] if r["player"] == leaver.username)
    assert row["status"] == "withdrawn" and row["played"] == 1


def test_a_withdrawal_between_rounds_and_before_the_start():
    now = timezone.now()
    organiser, *players = users(9)
    cup = tournament(organiser, players, now=now, format="swiss", rounds=2)
    early = players[-1]
    tournament_withdraw(tournament_id=cup.pk, user=early, now=now)
    assert Entry.objects.get(tournament=cup, user=early).joined is False  # the place is freed
    tournament_start(tournament_id=cup.pk, now=now)
    rng = random.Random(4)
    between = next(p for p in players if _tables_of(cup, p))
    play_matches(cup.pk, rng)
    # The round's last match is over but the round has not been checked yet.
    tournament_withdraw(tournament_id=cup.pk, user=between, now=now)
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=1))
    assert len(_tables_of(cup, between)) == 1
    assert not _tables_of(cup, early)
    play_matches(cup.pk, rng)
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=2))
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.FINISHED
    names = [r["player"] for r in tournament_standings(cup.pk)["rows"]]
    assert early.username not in names and between.username in names


def test_a_disqualification_after_the_players_games_leaves_them_standing():
    now = timezone.now()
    organiser, *players = users(5)
    cup = tournament(organiser, players, now=now, format="round_robin")
    tournament_start(tournament_id=cup.pk, now=now)
    rng = random.Random(5)
    play_matches(cup.pk, rng)
    round_check(tournament_id=cup.pk, now=now)
    cheat = next(p for p in players if _tables_of(cup, p))
    finished = [t for t in _tables_of(cup, cheat) if t.ranking is not None]
    assert finished
    before = {t.pk: t.ranking for t in finished}
    running = {t.pk for t in _tables_of(cup, cheat)} - set(before)
    player_disqualify(
        tournament_id=cup.pk, by=organiser, username=cheat.username, reason="engine use", now=now
    )
    for _ in range(6):
        play_matches(cup.pk, rng)
        round_check(tournament_id=cup.pk, now=now + timedelta(hours=1))
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.FINISHED
    for table in TournamentMatch.objects.filter(pk__in=before):
        assert table.ranking == before[table.pk]  # the finished games stand
    # Their later games are forfeits recorded without a match (forfeit chosen at creation).
    later = [t for t in _tables_of(cup, cheat) if t.pk not in before and t.pk not in running]
    assert later and all(t.match_id is None and t.forfeited == [cheat.pk] for t in later)
    event = next(e for e in tournament_events(cup.pk) if e["type"] == "disqualified")
    assert event["author"] == organiser.username and event["details"]["reason"] == "engine use"


def test_round_robin_withdrawn_games_against_the_stand_in_are_unrated():
    now = timezone.now()
    organiser, *players = users(4)
    cup = tournament(organiser, players, now=now, format="round_robin", withdrawn_games="stand_in")
    tournament_start(tournament_id=cup.pk, now=now)
    leaver = players[1]
    tournament_withdraw(tournament_id=cup.pk, user=leaver, now=now)
    rng = random.Random(6)
    for _ in range(4):
        play_matches(cup.pk, rng)
        round_check(tournament_id=cup.pk, now=now)
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.FINISHED
    later = _tables_of(cup, leaver)[1:]
    assert later and all(t.match_id is not None for t in later)
    for table in later:
        match = Match.objects.get(pk=table.match_id)
        assert match.rated is False and match.status == Match.Status.FINISHED
        bot_seat = Seat.objects.get(match=match, index=table.players.index(leaver.pk))
        assert bot_seat.user_id is None and bot_seat.bot == cup.stand_in_bot


def test_a_match_at_its_round_limit_is_played_out_by_the_stand_in():
    now = timezone.now()
    organiser, *players = users(5)
    cup = tournament(
        organiser, players, now=now, format="swiss", rounds=1, round_limit_seconds=3600
    )
    tournament_start(tournament_id=cup.pk, now=now)
    slow, fast = sorted(running_matches(cup.pk), key=lambda m: str(m.pk))
    play_matches(cup.pk, random.Random(7), only={fast.pk})
    assert round_limit_apply(tournament_id=cup.pk, now=now + timedelta(minutes=59)) == 0
    tournaments_sweep(now=now + timedelta(hours=1))  # the periodic job at the limit
    seats = Seat.objects.filter(match=slow)
    assert all(s.controlled_by == Seat.Controller.BOT for s in seats)
    assert {e["type"] for e in tournament_events(cup.pk)} >= {"round_limit"}
    play_matches(cup.pk, random.Random(8))
    tournaments_sweep(now=now + timedelta(hours=2))
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.FINISHED
    decided = {
        t.match_id: t.decided_by_stand_in
        for t in TournamentMatch.objects.filter(round__tournament=cup)
    }
    assert decided == {slow.pk: True, fast.pk: False}


def test_a_player_who_times_out_of_a_match_is_not_paired_again():
    now = timezone.now()
    organiser, *players = users(5)
    control = {"per_step_seconds": 3600, "on_timeout": "forfeit"}
    cup = tournament(organiser, players, now=now, rounds=2, time_control=control)
    tournament_start(tournament_id=cup.pk, now=now)
    match = running_matches(cup.pk)[0]
    late = Seat.objects.filter(match=match).order_by("index").first()
    assert late is not None
    # The other seat moves; the late one's clock runs out.
    other = Seat.objects.filter(match=match).exclude(pk=late.pk).select_related("user").get()
    engine = get_engine(match.game)
    assert engine is not None
    legal = engine.legal_moves(match.state, other.index)
    move_submit(match_id=match.pk, user=other.user, step=1, move=legal[0])
    step_expire(match_id=match.pk, step=1, now=timezone.now() + timedelta(hours=2))
    play_matches(cup.pk, random.Random(11))
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=3))
    entry = Entry.objects.get(tournament=cup, user_id=late.user_id)
    assert entry.status == Entry.Status.WITHDRAWN
    assert any(
        e["type"] == "withdrew" and e["details"]["reason"] == "timed_out" and e["author"] is None
        for e in tournament_events(cup.pk)
    )
    late_user = User.objects.get(pk=late.user_id)
    assert len(_tables_of(cup, late_user)) == 1


@pytest.mark.parametrize("mover_moves", [True, False])
def test_a_stand_in_never_plays_a_rated_match_for_an_account_that_never_moved(mover_moves):
    """#46: one seat of a rated two-seat tournament match never moves; at the round limit the
    stand-in plays it (and the other seat) to the end: neither rating changes."""
    now = timezone.now()
    organiser, *players = users(3)
    cup = tournament(organiser, players, now=now, rounds=1, round_limit_seconds=3600, rated=True)
    tournament_start(tournament_id=cup.pk, now=now)
    (match,) = running_matches(cup.pk)
    assert match.rated
    seats = list(Seat.objects.filter(match=match).select_related("user").order_by("index"))
    if mover_moves:
        engine = get_engine(match.game)
        assert engine is not None
        legal = engine.legal_moves(match.state, seats[0].index)
        move_submit(match_id=match.pk, user=seats[0].user, step=1, move=legal[0])
    tournaments_sweep(now=now + timedelta(hours=1))
    play_matches(cup.pk, random.Random(3))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    finished = match.events.get(type="match_finished")
    assert finished.data["ratings"] is None
    assert not Rating.objects.filter(user__in=[s.user for s in seats], rated_matches__gt=0)
