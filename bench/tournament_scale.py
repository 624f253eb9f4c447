"""Benchmark: a 1,000-player Swiss tournament, its pairing and standings.

    .venv/bin/python bench/tournament_scale.py [--players 1000] [--rounds 10] [--seed 1]
                                               [--db facedown_tournament_scale] [--runs 5]

Pure (no database): plays ``--rounds`` Swiss rounds of 2-seat matches through
tournaments.pairing.swiss_round with results drawn from a seeded generator (a fifth drawn, the
rest decided with the higher rating winning two times in three), and after each round prints the
time of pairing the next round and of the standings with their tie-breaks and of the crosstable.
1,000 players make 500 matches a round: 10 rounds are 5,000 finished matches.

With ``--db``: drops and recreates that database on the local PostgreSQL, migrates it, and
stores the same tournament with bulk inserts (users, entries, rounds, finished tables with their
rankings, byes; the tables carry no games.Match row, which none of the timed reads joins), then
times, as the median of ``--runs``, the pairing of the next round as the app does it (reading
the results, then swiss_round; without creating the matches) and the standings read
(tournaments.services.reads.tournament_standings), counting their queries.
docs/benchmarks.md ("Tournaments at 1,000 players") keeps the results.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
T = TypeVar("T")

from tournaments.pairing.standings import crosstable, standings  # noqa: E402
from tournaments.pairing.swiss import swiss_round  # noqa: E402
from tournaments.pairing.types import Entrant, Played, Round  # noqa: E402


def result(rng: random.Random, a: Entrant, b: Entrant) -> tuple[tuple[int, ...], ...]:
    if rng.random() < 0.2:
        return ((0, 1),)
    favourite_first = a.rating >= b.rating
    wins = rng.random() < 2 / 3
    return ((0,), (1,)) if favourite_first == wins else ((1,), (0,))


def timed(work: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = work()
    return value, time.perf_counter() - start


SERVER = "postgres://postgres@127.0.0.1:5432"


def play(field: list[Entrant], rounds: int, rng: random.Random) -> tuple[list[Played], list[Round]]:
    by_id = {e.id: e for e in field}
    played: list[Played] = []
    byes: dict[int, int] = {}
    done: list[Round] = []
    for number in range(1, rounds + 1):
        pairing = swiss_round(field, played, byes, seats=2, round_number=number)
        done.append(pairing)
        for table in pairing.tables:
            a, b = (by_id[p] for p in table.players)
            played.append(Played(number, table.players, result(rng, a, b)))
        for p in pairing.byes:
            byes[p] = byes.get(p, 0) + 1
    return played, done


def through_the_database(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')
    os.environ["DATABASE_URL"] = f"{SERVER}/{args.db}"
    os.environ.pop("REDIS_URL", None)
    os.environ["FACEDOWN_TASK_RUNNER"] = "off"
    os.environ.setdefault("DJANGO_SECRET_KEY", os.urandom(32).hex())
    os.environ.setdefault("FACEDOWN_SIGNING_KEY", os.urandom(32).hex())
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.models import User
    from tournaments.models import (
        Entry,
        Tournament,
        TournamentBye,
        TournamentMatch,
        TournamentRound,
    )
    from tournaments.services.reads import tournament_standings
    from tournaments.services.results import results_of

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    now = timezone.now()
    users = User.objects.bulk_create(
        User(username=f"swiss-{i}", password="!") for i in range(1, args.players + 1)
    )
    rng = random.Random(args.seed)
    field = [Entrant(u.pk, rng.gauss(25, 8)) for u in users]
    played, rounds = play(field, args.rounds, rng)
    tournament = Tournament.objects.create(
        name="Scale",
        game="gops",
        format=Tournament.Format.SWISS,
        rounds=args.rounds + 1,
        round_limit_seconds=7 * 86400,
        starts_at=now,
        status=Tournament.Status.RUNNING,
        organiser=users[0],
        current_round=args.rounds,
        created_at=now,
    )
    Entry.objects.bulk_create(
        Entry(tournament=tournament, user_id=e.id, rating=e.rating, joined_at=now) for e in field
    )
    round_rows = TournamentRound.objects.bulk_create(
        TournamentRound(
            tournament=tournament, number=n, started_at=now, limit_at=now, finished_at=now
        )
        for n in range(1, args.rounds + 1)
    )
    TournamentMatch.objects.bulk_create(
        (
            TournamentMatch(
                round=round_rows[p.round - 1],
                players=list(p.players),
                ranking=[list(group) for group in p.ranking],
                finished_at=now,
            )
            for p in played
        ),
        batch_size=1000,
    )
    TournamentBye.objects.bulk_create(
        TournamentBye(round=round_rows[n], user_id=player)
        for n, r in enumerate(rounds)
        for player in r.byes
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"filled: {args.players} entries, {len(played)} finished tables "
        f"in {time.perf_counter() - start:.1f} s"
    )

    def pair_next() -> Round:
        results = results_of(tournament)
        return swiss_round(
            results.entrants, results.played, results.byes, seats=2, round_number=args.rounds + 1
        )

    cases: dict[str, Callable[[], object]] = {
        "pair the next round": pair_next,
        "standings read": lambda: tournament_standings(tournament.pk),
    }
    print(f"{'case':<22} {'median s':>9} {'max s':>7} {'queries':>8}")
    for label, work in cases.items():
        took = []
        queries = 0
        for _ in range(args.runs):
            with CaptureQueriesContext(connection) as captured:
                _, seconds = timed(work)
            took.append(seconds)
            queries = len(captured.captured_queries)
        print(f"{label:<22} {statistics.median(took):>9.3f} {max(took):>7.3f} {queries:>8}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="also through the database: drops and recreates it")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    if args.db:
        through_the_database(args)
        return
    rng = random.Random(args.seed)
    field = [Entrant(i, rng.gauss(25, 8)) for i in range(1, args.players + 1)]
    by_id = {e.id: e for e in field}
    played: list[Played] = []
    byes: dict[int, int] = {}
    heads = ("played", "matches", "swiss_round s", "standings s", "crosstable s")
    print(" ".join(f"{h:>14}" for h in heads))
    for number in range(1, args.rounds + 2):
        pairing, pair_s = timed(
            partial(swiss_round, field, played, byes, seats=2, round_number=number)
        )
        _, stand_s = timed(lambda: standings(field, played, byes))
        _, cross_s = timed(lambda: crosstable(field, played))
        figures = (f"{number - 1}", f"{len(played)}", f"{pair_s:.3f}", f"{stand_s:.3f}")
        print(" ".join(f"{f:>14}" for f in (*figures, f"{cross_s:.3f}")))
        if number > args.rounds:
            break
        for table in pairing.tables:
            a, b = (by_id[p] for p in table.players)
            played.append(Played(number, table.players, result(rng, a, b)))
        for p in pairing.byes:
            byes[p] = byes.get(p, 0) + 1


if __name__ == "__main__":
    main()
