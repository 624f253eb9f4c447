"""Benchmark: an arena tournament on a controlled clock, and the pairing of one wave.

    .venv/bin/python bench/arena_tournament.py [--players 50] [--minutes 60] [--move-seconds 20]
                                               [--seed 1] [--db facedown_arena_tournament]
    .venv/bin/python bench/arena_tournament.py --pair-only [--waiting 1000 10000]

The arena (not bench/arena.py, which measures the bots): drops and recreates ``--db`` on the
local PostgreSQL, migrates it, enters ``--players`` accounts in a two-seat GOPS arena (3 cards,
Fischer 10 min + 10 s) of ``--minutes``, and runs its window on a controlled clock in steps of
one second of tournament time: every seat due plays a random legal move through the match
services (a step every ``--move-seconds`` per match on average, drawn from half to one and a
half times that), a finished match's job runs at once
(``match_finished``: its wave), and the periodic wave (``arena_waves``) every 2 s. Past the
window it runs on until the arena finishes. It reports the matches played, whether a wave ever
seated a player at two running tables, the median and 95th percentile of the wait from a match's
end to the player's next pairing (tournament time), what is left running at the end, and the
wall time.

``--pair-only``: times ``pair_wave`` (no database) for each ``--waiting`` count of two-seat
players with random ranks and ratings and a recent opponent each, median of 3.
docs/benchmarks.md ("Arena tournaments") keeps the results.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tournaments.pairing.waves import Waiting, pair_key, pair_wave  # noqa: E402

SERVER = "postgres://postgres@127.0.0.1:5432"
WAVE_SECONDS = 2


def pair_timing(count: int, seed: int, runs: int = 3) -> float:
    """Median seconds of one wave of ``count`` waiting two-seat players."""
    rng = random.Random(seed)
    waiting = [Waiting(id=i, rank=i, rating=rng.gauss(1500, 200)) for i in range(count)]
    recent = {pair_key(i, (i + 1) % count): 1 for i in range(0, count, 2)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        wave = pair_wave(waiting, seats=2, recent=recent)
        times.append(time.perf_counter() - start)
        assert len(wave.tables) == count // 2
    return statistics.median(times)


def simulate(players: int, minutes: int, move_seconds: int, seed: int) -> dict[str, Any]:
    """The arena through its window; Django is set up and the database migrated."""
    from django.utils import timezone

    from accounts.models import User
    from games.catalog import get_engine
    from games.models import Match, Seat
    from games.services.moves import move_submit
    from tournaments.models import Tournament, TournamentMatch
    from tournaments.services.arena import arena_waves
    from tournaments.services.create import tournament_create
    from tournaments.services.entries import tournament_join
    from tournaments.services.lifecycle import match_finished, tournament_start

    rng = random.Random(seed)

    def think() -> timedelta:  # a step every move_seconds on average, from half to one and a half
        return timedelta(seconds=rng.randint(max(1, move_seconds // 2), move_seconds * 3 // 2))

    engine = get_engine("gops")
    assert engine is not None
    t0 = timezone.now().replace(microsecond=0)
    organiser = User.objects.create_user(username="arena-organiser")
    arena = tournament_create(
        organiser=organiser,
        now=t0,
        name="Benchmark arena",
        game="gops",
        options={"num_cards": 3},
        format="arena",
        arena_minutes=minutes,
        time_control={
            "kind": "fischer",
            "initial_seconds": 600,
            "increment_seconds": 10,
            "max_seconds": 900,
        },
        round_limit_seconds=3600,
        starts_at=t0,
    )
    for i in range(players):
        user = User.objects.create_user(username=f"arena{i:05d}")
        tournament_join(tournament_id=arena.pk, user=user, now=t0)
    wall = time.perf_counter()
    tournament_start(tournament_id=arena.pk, by=organiser, now=t0)
    due: dict[Any, datetime] = {}
    twice = 0
    now = t0
    end = t0 + timedelta(minutes=minutes)
    limit = end + timedelta(hours=1)
    while now < limit:
        now += timedelta(seconds=1)
        for match in Match.objects.filter(
            tournament_table__round__tournament=arena, status=Match.Status.ACTIVE
        ):
            due.setdefault(match.pk, now + think())
            if due[match.pk] > now:
                continue
            for seat in Seat.objects.filter(match=match).select_related("user"):
                if seat.user is not None and seat.awaited_in(match):
                    move = rng.choice(engine.legal_moves(match.state, seat.index))
                    move_submit(
                        match_id=match.pk, user=seat.user, step=match.step, move=move, now=now
                    )
            due[match.pk] = now + think()
            if Match.objects.get(pk=match.pk).status != Match.Status.ACTIVE:
                match_finished(match_id=match.pk, now=now)  # the job the finish leaves
        if int((now - t0).total_seconds()) % WAVE_SECONDS == 0:
            arena_waves(now=now)
            running = TournamentMatch.objects.filter(
                round__tournament=arena, ranking__isnull=True
            ).values_list("players", flat=True)
            seated = [p for table in running for p in table]
            twice += len(seated) - len(set(seated))
        if now >= end and Tournament.objects.get(pk=arena.pk).status != "running":
            break
    wall = time.perf_counter() - wall
    arena.refresh_from_db()
    tables = list(
        TournamentMatch.objects.filter(round__tournament=arena)
        .select_related("round", "match")
        .order_by("round__number")
    )
    by_player: dict[int, list[TournamentMatch]] = defaultdict(list)
    for table in tables:
        for player in table.players:
            by_player[player].append(table)
    waits = [
        (later.round.started_at - earlier.match.finished_at).total_seconds()
        for own in by_player.values()
        for earlier, later in pairwise(own)
        if earlier.match is not None and earlier.match.finished_at is not None
    ]
    waits.sort()
    running_left = Match.objects.filter(
        tournament_table__round__tournament=arena, status=Match.Status.ACTIVE
    ).count()
    return {
        "players": players,
        "minutes": minutes,
        "matches": len(tables),
        "paired_twice": twice,
        "median_wait_s": statistics.median(waits) if waits else None,
        "p95_wait_s": waits[int(len(waits) * 0.95)] if waits else None,
        "max_wait_s": waits[-1] if waits else None,
        "mean_wait_s": round(statistics.mean(waits), 2) if waits else None,
        "status": arena.status,
        "finished_after_window_s": (
            (arena.finished_at - end).total_seconds() if arena.finished_at else None
        ),
        "running_left": running_left,
        "wall_s": round(wall, 1),
    }


def through_the_database(args: argparse.Namespace) -> dict[str, Any]:
    from bench.database import fresh_database

    fresh_database(args.db, SERVER)  # a copy of the migrated template: no migrate here
    os.environ["DATABASE_URL"] = f"{SERVER}/{args.db}"
    os.environ.pop("REDIS_URL", None)
    os.environ["FACEDOWN_TASK_RUNNER"] = "off"
    os.environ.setdefault("DJANGO_SECRET_KEY", os.urandom(32).hex())
    os.environ.setdefault("FACEDOWN_SIGNING_KEY", os.urandom(32).hex())
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    return simulate(args.players, args.minutes, args.move_seconds, args.seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--minutes", type=int, default=60)
    parser.add_argument("--move-seconds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default="facedown_arena_tournament")
    parser.add_argument("--pair-only", action="store_true")
    parser.add_argument("--waiting", type=int, nargs="*", default=[1000, 10000])
    args = parser.parse_args(argv)
    if args.pair_only:
        for count in args.waiting:
            print(f"pair_wave {count} waiting: {pair_timing(count, args.seed):.3f} s")
        return
    for key, value in through_the_database(args).items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
