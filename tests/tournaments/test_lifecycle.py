"""Entry conditions, the scheduled start, pause and resume, the organiser's end."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from core.errors import (
    AlreadyInvited,
    EntryRefused,
    NotInvited,
    PauseNotAllowed,
    TournamentNotOpen,
)
from games.models import Match, Rating
from tests.tournaments.driver import play_matches, tournament, users
from tournaments.models import Entry, Tournament, TournamentRound
from tournaments.services.entries import (
    player_invite,
    tournament_decline,
    tournament_join,
    why_not,
)
from tournaments.services.lifecycle import (
    round_check,
    tournament_end,
    tournament_pause,
    tournament_resume,
    tournament_start,
    tournaments_sweep,
)
from tournaments.services.reads import tournament_events

pytestmark = pytest.mark.django_db
DAY = timedelta(days=1)


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def test_entry_conditions_each_have_their_code():
    now = timezone.now()
    organiser, newcomer, veteran = users(3)
    Rating.objects.create(user=veteran, game="gops", mu=40, sigma=2, ordinal=34, rated_matches=12)
    User.objects.filter(pk=veteran.pk).update(date_joined=now - 40 * DAY)
    veteran.refresh_from_db()
    # veteran's ordinal of 34 reads 3200, a newcomer's 1500 (games/services/rating_scale.py)
    strict = tournament(
        organiser, [], now=now, min_rating=2000, min_rated_games=5, min_account_days=30
    )
    assert why_not(strict, newcomer, now) == "rating_too_low"
    assert why_not(strict, veteran, now) is None
    capped = tournament(organiser, [], now=now, max_rating=3000)
    assert why_not(capped, veteran, now) == "rating_too_high"
    games = tournament(organiser, [], now=now, min_rated_games=5)
    assert why_not(games, newcomer, now) == "too_few_rated_games"
    young = tournament(organiser, [], now=now, min_account_days=30)
    assert why_not(young, newcomer, now) == "account_too_new"
    window = tournament(
        organiser,
        [],
        now=now,
        registration_opens_at=now + timedelta(hours=1),
        registration_closes_at=now + timedelta(hours=2),
    )
    assert why_not(window, veteran, now) == "registration_not_open"
    assert why_not(window, veteran, now + timedelta(hours=2)) == "registration_closed"
    with pytest.raises(EntryRefused) as refused:
        tournament_join(tournament_id=strict.pk, user=newcomer, now=now)
    assert refused.value.extra == {"why_not": "rating_too_low", "rating": 1500, "limit": 2000}
    with pytest.raises(TournamentNotOpen):
        tournament_join(tournament_id=window.pk, user=veteran, now=now)
    assert tournament_join(tournament_id=strict.pk, user=veteran, now=now).rating == 34


def test_the_sweep_starts_a_tournament_at_its_time_or_cancels_it():
    now = timezone.now()
    organiser, *players = users(4)
    full = tournament(organiser, players, now=now)
    empty = tournament(organiser, players[:1], now=now)
    assert tournaments_sweep(now=now) == 0  # not yet
    tournaments_sweep(now=now + DAY)
    full.refresh_from_db()
    empty.refresh_from_db()
    assert full.status == Tournament.Status.RUNNING and full.current_round == 1
    assert empty.status == Tournament.Status.CANCELLED
    assert [e["type"] for e in tournament_events(empty.pk)][-1] == "ended"


def test_pause_holds_new_rounds_and_the_limit():
    now = timezone.now()
    organiser, *players = users(5)
    untimed = tournament(organiser, players, now=now)
    tournament_start(tournament_id=untimed.pk, now=now)
    with pytest.raises(PauseNotAllowed):
        tournament_pause(tournament_id=untimed.pk, by=organiser, now=now)
    cup = tournament(
        organiser, players, now=now, time_control={"per_step_seconds": 86400}, rounds=2
    )
    tournament_start(tournament_id=cup.pk, now=now)
    limit = TournamentRound.objects.get(tournament=cup, number=1).limit_at
    tournament_pause(tournament_id=cup.pk, by=organiser, now=now + timedelta(hours=1))
    play_matches(cup.pk, random.Random(9))
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=2))
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.PAUSED and cup.current_round == 1
    assert TournamentRound.objects.get(tournament=cup, number=1).finished_at is not None
    tournament_resume(tournament_id=cup.pk, by=organiser, now=now + timedelta(hours=4))
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.RUNNING and cup.current_round == 2
    events = [(e["type"], e["author"]) for e in tournament_events(cup.pk)]
    assert ("paused", organiser.username) in events and ("resumed", organiser.username) in events
    assert limit == now + timedelta(days=7)


def test_the_resumed_round_limit_moves_on_by_the_pause():
    now = timezone.now()
    organiser, *players = users(5)
    cup = tournament(
        organiser, players, now=now, time_control={"per_step_seconds": 86400}, rounds=1
    )
    tournament_start(tournament_id=cup.pk, now=now)
    tournament_pause(tournament_id=cup.pk, by=organiser, now=now)
    tournament_resume(tournament_id=cup.pk, by=organiser, now=now + 2 * DAY)
    limit = TournamentRound.objects.get(tournament=cup, number=1).limit_at
    assert limit == now + timedelta(days=7) + 2 * DAY


def test_a_pause_stops_the_running_matches_clocks_and_the_resumption_starts_them():
    now = timezone.now()
    organiser, *players = users(5)
    cup = tournament(
        organiser, players, now=now, time_control={"per_step_seconds": 86400}, rounds=1
    )
    tournament_start(tournament_id=cup.pk, now=now)

    def matches() -> list[Match]:
        return list(Match.objects.filter(tournament_table__round__tournament=cup))

    started = {m.pk: m.deadline for m in matches()}
    # The matches started on the tournament's clock: a day per step from its start.
    assert len(started) == 2 and set(started.values()) == {now + DAY}
    paused_at, resumed_at = now + timedelta(hours=1), now + 2 * DAY
    tournament_pause(tournament_id=cup.pk, by=organiser, now=paused_at)
    # Nothing counts for 14 days: each step's deadline moves past the hold's end.
    for m in matches():
        assert m.paused_until == paused_at + 14 * DAY
        assert m.deadline == started[m.pk] + 14 * DAY
        assert m.events.filter(type="match_paused").exists()
    tournament_resume(tournament_id=cup.pk, by=organiser, now=resumed_at)
    # They count again from the resumption, each with the time its step had left.
    for m in matches():
        assert m.paused_until is None
        assert m.deadline == started[m.pk] + (resumed_at - paused_at)
        assert m.events.filter(type="match_resumed").exists()


def test_the_organiser_ends_it_with_the_finished_results():
    now = timezone.now()
    organiser, *players = users(5)
    cup = tournament(organiser, players, now=now, rounds=3)
    tournament_start(tournament_id=cup.pk, now=now)
    play_matches(cup.pk, random.Random(10))
    tournament_end(tournament_id=cup.pk, by=organiser, now=now)
    cup.refresh_from_db()
    assert cup.status == Tournament.Status.FINISHED and cup.current_round == 1
    types = [e["type"] for e in tournament_events(cup.pk)]
    assert types[-2:] == ["ended", "finished"]
    with pytest.raises(TournamentNotOpen):
        tournament_end(tournament_id=cup.pk, by=organiser, now=now)


def test_interval_rounds_wait_for_their_day_and_a_late_player_joins_a_running_swiss():
    now = timezone.now()
    organiser, *players = users(6)
    cup = tournament(organiser, players[:4], now=now, rounds=2, round_interval_days=2)
    tournament_start(tournament_id=cup.pk, now=now)
    play_matches(cup.pk, random.Random(12))
    round_check(tournament_id=cup.pk, now=now + timedelta(hours=1))
    cup.refresh_from_db()
    assert cup.current_round == 1  # the round is over, the next one is not due yet
    assert TournamentRound.objects.get(tournament=cup, number=1).finished_at is not None
    late = players[4]
    player_invite(tournament_id=cup.pk, by=organiser, username=late.username, now=now + DAY)
    tournament_join(tournament_id=cup.pk, user=late, now=now + DAY)  # the late player's own act
    tournaments_sweep(now=now + 2 * DAY)
    cup.refresh_from_db()
    assert cup.current_round == 2
    second = TournamentRound.objects.get(tournament=cup, number=2)
    assert second.started_at == now + 2 * DAY
    seated = {p for t in second.tables.all() for p in t.players}
    byes = set(second.byes.values_list("user_id", flat=True))
    assert late.pk in seated | byes  # paired from their first round on, with no points


def test_an_invited_late_player_enters_only_by_their_own_join_under_the_conditions():
    """#46: the organiser invites; nobody is entered by it. The invitee joins a running Swiss
    late through the entry conditions (a two-minute-old account is refused under
    ``min_account_days``), or declines; a second invitation while one is open is refused."""
    now = timezone.now()
    organiser, *players = users(7)
    User.objects.filter(pk__in=[p.pk for p in players]).update(date_joined=now - 40 * DAY)
    for player in players:
        player.refresh_from_db()
    cup = tournament(organiser, players[:4], now=now, rounds=2, min_account_days=30)
    tournament_start(tournament_id=cup.pk, now=now)
    veteran, newcomer = players[4], players[5]
    User.objects.filter(pk=newcomer.pk).update(date_joined=now)
    newcomer.refresh_from_db()
    for invitee in (veteran, newcomer):
        entry = player_invite(tournament_id=cup.pk, by=organiser, username=invitee.username)
        assert (entry.invited, entry.joined) == (True, False)
        assert why_not(Tournament.objects.get(pk=cup.pk), invitee, now) in (None, "account_too_new")
    with pytest.raises(AlreadyInvited):
        player_invite(tournament_id=cup.pk, by=organiser, username=veteran.username)
    with pytest.raises(EntryRefused) as refused:
        tournament_join(tournament_id=cup.pk, user=newcomer, now=now)
    assert refused.value.extra["why_not"] == "account_too_new"
    tournament_join(tournament_id=cup.pk, user=veteran, now=now)
    assert Entry.objects.get(tournament=cup, user=veteran).joined
    tournament_decline(tournament_id=cup.pk, user=newcomer, now=now)
    assert not Entry.objects.filter(tournament=cup, user=newcomer).exists()
    with pytest.raises(NotInvited):
        tournament_decline(tournament_id=cup.pk, user=newcomer, now=now)
    types = [e["type"] for e in tournament_events(cup.pk)]
    assert types.count("invited") == 2 and "declined" in types
