"""Arena tournaments on a controlled clock: twenty players (people and bot accounts) through
the API joining, leaving and coming back during the window; points with streaks and berserk
scored by hand; berserk and a missed first move on real matches; the window's end."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.catalog import get_engine
from games.models import InvitationCount, Match, Seat
from games.services.deadlines import step_expire
from games.services.matches import match_resign
from games.services.moves import move_submit
from tests.players import Player, make_player
from tests.tournaments.driver import play_matches, running_matches
from tournaments.models import Entry, Tournament, TournamentMatch
from tournaments.pairing.arena import ArenaScore, arena_scores
from tournaments.pairing.types import Played
from tournaments.services.arena import arena_wave, arena_waves
from tournaments.services.lifecycle import match_finished, tournaments_sweep

pytestmark = pytest.mark.django_db

FISCHER = {"kind": "fischer", "initial_seconds": 600, "increment_seconds": 10, "max_seconds": 900}


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _arena(organiser: Player, starts_at: datetime, **extra: Any) -> dict[str, Any]:
    body = {
        "name": "Evening arena",
        "game": "gops",
        "options": {"num_cards": 3},
        "format": "arena",
        "arena_minutes": 60,
        "time_control": FISCHER,
        "round_limit_seconds": 3600,
        "starts_at": starts_at.isoformat(),
        **extra,
    }
    created = organiser.post("/tournaments", body)
    assert created.status_code == 201, created.content
    return created.json()


def _seated(tid: Any) -> list[int]:
    """Every player at a running (unrecorded) table, once per table."""
    rows = TournamentMatch.objects.filter(round__tournament_id=tid, ranking__isnull=True)
    return [p for players in rows.values_list("players", flat=True) for p in players]


def _check_wave(tid: Any) -> None:
    seated = _seated(tid)
    assert len(seated) == len(set(seated)), "a player at two running tables"


def _scores_from_tables(tournament: Tournament) -> dict[int, ArenaScore]:
    tables = TournamentMatch.objects.filter(
        round__tournament=tournament, ranking__isnull=False
    ).select_related("match")
    ordered = sorted(tables, key=lambda t: (t.match.finished_at, t.pk))
    return arena_scores(
        (
            (Played(0, tuple(t.players), tuple(tuple(g) for g in t.ranking)), t.berserk)
            for t in ordered
        ),
        streaks=tournament.streaks,
    )


def test_points_streaks_and_berserk_scored_by_hand():
    a, b, c, d, e = 1, 2, 3, 4, 5

    def win(x: int, y: int) -> Played:
        return Played(0, (x, y), ((0,), (1,)))

    tables = [
        (win(a, b), ()),  # a: win 2 (one in a row); b: 0
        (win(a, c), ()),  # a: win 2 → 4, two in a row: on fire
        (win(a, d), (a,)),  # a: on fire, win doubled 4, berserk +1 → 9
        (Played(0, (a, e), ((0, 1),)), ()),  # a, e: draw 1 each → a 10, the streak ends
        (win(b, a), ()),  # b: win 2; a: 0 → a 10
        (win(a, b), ()),  # a: win 2 (not on fire) → 12
    ]
    scores = arena_scores(tables, streaks=True)
    assert scores[a] == ArenaScore(points=12, wins_in_row=1, played=6)
    assert (scores[b].points, scores[e].points, scores[d].points) == (2, 1, 0)
    # Without streaks: a scores 2 + 2 + (2 + 1) + 1 + 0 + 2 = 10.
    assert arena_scores(tables, streaks=False)[a].points == 10
    # Four seats: places score 6, 4, 2, 0; a tie for second shares 3 and 3.
    four = Played(0, (a, b, c, d), ((0,), (1, 2), (3,)))
    assert {p: s.points for p, s in arena_scores([(four, ())], streaks=True).items()} == {
        a: 6,
        b: 3,
        c: 3,
        d: 0,
    }


def test_an_arena_of_twenty_people_and_bots_joining_and_leaving_through_the_api():
    t0 = timezone.now()
    organiser = make_player("organiser")
    people = [make_player(f"person{i:02d}") for i in range(16)]
    bots = [make_player(f"robot{i}", bot=True) for i in range(4)]
    refuser = people[0]
    refuser.user.invitations_from_bots = False
    refuser.user.save(update_fields=["invitations_from_bots"])
    created = _arena(organiser, t0 + timedelta(minutes=1), admit_bots=True)
    tid = created["id"]
    # Every player reads that bots are admitted before joining.
    detail = people[1].get(f"/tournaments/{tid}").json()
    assert detail["admit_bots"] is True and detail["you"]["may_join"] is True
    early, late = [*people[:14], *bots], people[14:]
    for player in early:
        assert player.post(f"/tournaments/{tid}/join").status_code == 200
    now = t0 + timedelta(minutes=1)
    tournaments_sweep(now=now)  # the start, and its first wave
    arena = Tournament.objects.get(pk=tid)
    assert arena.status == Tournament.Status.RUNNING
    assert arena.ends_at == now + timedelta(minutes=60)
    assert len(_seated(tid)) == 18
    _check_wave(tid)
    bot_ids = {p.user.pk for p in bots}
    leaver = people[1]
    rng = random.Random(5)
    for wave in range(8):
        tables = TournamentMatch.objects.filter(round__tournament_id=tid, ranking__isnull=True)
        for table in tables.select_related("match"):
            assert not (refuser.user.pk in table.players and bot_ids & set(table.players))
            mixed = bool(bot_ids & set(table.players)) and bool(set(table.players) - bot_ids)
            assert table.match is not None and table.match.rated is not mixed
        if wave == 1:  # two join late, mid-way
            for player in late:
                assert player.post(f"/tournaments/{tid}/join").status_code == 200
        if wave == 2:  # one leaves while seated: plays the match out, then is not paired
            assert leaver.user.pk in _seated(tid)
            assert leaver.post(f"/tournaments/{tid}/withdraw").status_code == 200
        if wave == 5:
            assert leaver.user.pk not in _seated(tid)
            assert leaver.post(f"/tournaments/{tid}/join").status_code == 200
        play_matches(tid, rng)
        now += timedelta(seconds=10)
        arena_wave(tournament_id=tid, now=now)
        _check_wave(tid)
        if wave in (3, 4):
            assert leaver.user.pk not in _seated(tid)
    assert leaver.user.pk in _seated(tid)  # back after joining again
    assert not InvitationCount.objects.exists()  # a pairing is not an invitation
    # The window closes with matches running: they finish and count.
    end = arena.ends_at
    assert end is not None
    arena_wave(tournament_id=tid, now=end)
    assert Tournament.objects.get(pk=tid).status == Tournament.Status.RUNNING
    running = running_matches(tid)
    assert running
    play_matches(tid, rng)
    arena_wave(tournament_id=tid, now=end + timedelta(seconds=2))
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.FINISHED
    assert not _seated(tid)
    standings = organiser.get(f"/tournaments/{tid}/standings").json()["rows"]
    expected = _scores_from_tables(arena)
    names = {e.user.username: e.user_id for e in Entry.objects.filter(tournament=arena)}
    assert len(standings) == 20
    for row in standings:
        assert row["score"] == expected.get(names[row["player"]], ArenaScore()).points
        assert row["played"] == expected.get(names[row["player"]], ArenaScore()).played
    assert [r["score"] for r in standings] == sorted((r["score"] for r in standings), reverse=True)
    assert (
        sum(r["played"] for r in standings)
        == 2 * TournamentMatch.objects.filter(round__tournament=arena).count()
    )
    assert standings[0]["player"] == arena.events.get(type="finished").data["winner"]
    csv_text = organiser.get(f"/tournaments/{tid}/export?format=csv").content.decode()
    assert csv_text.count("\n") == 21
    assert organiser.get(f"/tournaments/{tid}/export?format=trf").status_code == 200


def _running_table(tid: Any, player: Player) -> TournamentMatch:
    return TournamentMatch.objects.select_related("match").get(
        round__tournament_id=tid, ranking__isnull=True, players__contains=[player.user.pk]
    )


def test_berserk_halves_the_bank_and_wins_a_point_and_a_missed_first_move_withdraws():
    t0 = timezone.now()
    organiser = make_player("host")
    players = [make_player(f"p{i}") for i in range(4)]
    tid = _arena(organiser, t0 + timedelta(minutes=1), berserk=True)["id"]
    for player in players:
        player.post(f"/tournaments/{tid}/join")
    now = t0 + timedelta(minutes=1)
    tournaments_sweep(now=now)
    berserker = players[0]
    table = _running_table(tid, berserker)
    assert table.match is not None
    seat = table.players.index(berserker.user.pk)
    answer = berserker.post(f"/tournaments/{tid}/berserk", {"match": str(table.match_id)})
    assert answer.status_code == 200, answer.content
    clock = Match.objects.get(pk=table.match_id).clocks[seat]
    assert clock["bank"] <= 300_000  # half of the 600 s it held at most
    again = berserker.post(f"/tournaments/{tid}/berserk", {"match": str(table.match_id)})
    assert again.status_code == 409 and again.json()["code"] == "berserk_refused"
    # The opponent resigns: a win on a berserked table, 2 + 1.
    opponent = next(s.user for s in Seat.objects.filter(match=table.match) if s.index != seat)
    match_resign(match_id=table.match_id, user=opponent)
    # The other table: one moves, the other misses the first step's deadline.
    other = TournamentMatch.objects.filter(round__tournament_id=tid).exclude(pk=table.pk).get()
    match = Match.objects.get(pk=other.match_id)
    mover, sleeper = Seat.objects.filter(match=match).select_related("user").order_by("index")
    engine = get_engine(match.game)
    assert engine is not None
    legal = engine.legal_moves(match.state, mover.index)
    move_submit(match_id=match.pk, user=mover.user, step=match.step, move=legal[0])
    match.refresh_from_db()
    assert match.deadline is not None
    assert step_expire(match_id=match.pk, step=match.step, now=match.deadline + timedelta(1))
    play_matches(tid, random.Random(2))
    now += timedelta(seconds=5)
    arena_wave(tournament_id=tid, now=now)
    entries = {e.user_id: e for e in Entry.objects.filter(tournament_id=tid)}
    assert entries[berserker.user.pk].points == 3
    assert entries[sleeper.user_id].status == Entry.Status.WITHDRAWN
    assert sleeper.user_id not in _seated(tid)
    events = Counter(
        e.data.get("reason") for e in Tournament.objects.get(pk=tid).events.filter(type="withdrew")
    )
    assert events["missed_first_move"] == 1


def test_bots_enter_only_where_admitted_and_arenas_per_account_are_capped(settings):
    settings.FACEDOWN_ARENA_ENTRIES_PER_ACCOUNT = 2
    start = timezone.now() + timedelta(hours=1)
    organiser, person, program = (
        make_player("maker"),
        make_player("human"),
        make_player("program", bot=True),
    )
    closed = _arena(organiser, start)["id"]
    refused = program.post(f"/tournaments/{closed}/join")
    assert refused.status_code == 403 and refused.json()["why_not"] == "bots_not_admitted"
    assert program.get(f"/tournaments/{closed}").json()["you"]["why_not"] == "bots_not_admitted"
    swiss = organiser.post(
        "/tournaments",
        {
            "name": "Open Swiss",
            "game": "gops",
            "format": "swiss",
            "rounds": 2,
            "round_limit_seconds": 3600,
            "starts_at": start.isoformat(),
            "admit_bots": True,
        },
    ).json()["id"]
    assert program.post(f"/tournaments/{swiss}/join").status_code == 200
    arenas = [_arena(organiser, start)["id"] for _ in range(3)]
    assert person.post(f"/tournaments/{arenas[0]}/join").status_code == 200
    assert person.post(f"/tournaments/{arenas[1]}/join").status_code == 200
    third = person.post(f"/tournaments/{arenas[2]}/join")
    assert third.status_code == 403 and third.json()["why_not"] == "too_many_arenas"
    assert not Entry.objects.filter(tournament_id=arenas[2]).exists()
    assert person.post(f"/tournaments/{arenas[0]}/withdraw").status_code == 200
    assert person.post(f"/tournaments/{arenas[2]}/join").status_code == 200


def test_a_correspondence_arena_runs_for_days_the_same_way():
    t0 = timezone.now()
    organiser = make_player("slow-host")
    players = [make_player(f"slow{i}") for i in range(4)]
    days = {"kind": "fischer", "initial_seconds": 2 * 86400, "increment_seconds": 86400}
    tid = _arena(
        organiser,
        t0 + timedelta(minutes=1),
        arena_minutes=3 * 24 * 60,
        time_control={**days, "max_seconds": 4 * 86400},
        round_limit_seconds=7 * 86400,
    )["id"]
    for player in players:
        assert player.post(f"/tournaments/{tid}/join").status_code == 200
    assert organiser.post(f"/tournaments/{tid}/start").status_code == 200
    arena = Tournament.objects.get(pk=tid)
    assert arena.ends_at is not None
    # Started early by the organiser: the window runs its three days from then.
    assert abs(arena.ends_at - (timezone.now() + timedelta(days=3))) < timedelta(minutes=1)
    rng = random.Random(7)
    for day in (1, 2):
        play_matches(tid, rng)  # each match over within its day
        arena_wave(tournament_id=tid, now=timezone.now() + timedelta(days=day))
        _check_wave(tid)
        assert len(_seated(tid)) == 4
    play_matches(tid, rng)
    arena_wave(tournament_id=tid, now=arena.ends_at + timedelta(hours=1))
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.FINISHED
    # Three waves of two tables, each counted (a streak may add to the 2 points a table gives).
    expected = _scores_from_tables(arena)
    assert sum(score.played for score in expected.values()) == 3 * 2 * 2
    for entry in Entry.objects.filter(tournament=arena):
        assert entry.points == expected[entry.user_id].points >= 0


def test_a_finished_matchs_wave_does_not_rematch_at_once_the_periodic_wave_may():
    t0 = timezone.now()
    organiser = make_player("rematch-host")
    players = [make_player(f"r{i}") for i in range(4)]
    tid = _arena(organiser, t0 + timedelta(minutes=1))["id"]
    for player in players:
        player.post(f"/tournaments/{tid}/join")
    now = t0 + timedelta(minutes=1)
    tournaments_sweep(now=now)
    first = TournamentMatch.objects.filter(round__tournament_id=tid).order_by("pk").first()
    assert first is not None
    play_matches(tid, random.Random(4), only={first.match_id})
    now += timedelta(seconds=1)
    # The two who just played are the only ones free: their match's wave seats nobody ...
    assert match_finished(match_id=first.match_id, now=now) is False
    assert not set(first.players) & set(_seated(tid))
    # ... the periodic wave seats them together rather than let them wait on.
    now += timedelta(seconds=1)
    assert arena_waves(now=now) == 1
    assert sorted(_seated(tid)) == sorted(p.user.pk for p in players)


def test_the_arena_waves_are_a_periodic_job_of_both_runners(settings):
    from games import dispatch
    from games.embedded import worker

    assert worker.periodic["arena_waves"]() == settings.FACEDOWN_ARENA_WAVE_SECONDS == 2
    assert dispatch.job("arena_waves") is not None
    beat = settings.CELERY_BEAT_SCHEDULE["arena-waves"]
    assert beat["task"] == "tournaments.tasks.arena_waves_task"
    assert beat["schedule"] == 2
