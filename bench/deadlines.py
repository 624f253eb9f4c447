"""Benchmark: the deadline sweep over many correspondence matches, and live timeout delay.

    .venv/bin/python bench/deadlines.py [--matches 10000] [--overdue 1000] [--live 200]

Runs against the local PostgreSQL (database ``facedown_bench``, created and migrated here) and
the local Redis, with a real Celery worker in this process for the live part. Prints a table;
docs/benchmarks.md keeps the results.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/facedown_bench")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/14")
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
# The production checks (core/checks.py) want these; a benchmark makes its own.
os.environ.setdefault("DJANGO_SECRET_KEY", os.urandom(32).hex())
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")
os.environ.setdefault("FACEDOWN_SIGNING_KEY", os.urandom(32).hex())


def _database() -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
        c.execute("DROP DATABASE IF EXISTS facedown_bench WITH (FORCE)")
        c.execute("CREATE DATABASE facedown_bench")


def _seed(matches: int, overdue: int) -> list[uuid.UUID]:
    """Active 2-player GOPS matches, 3 days per move; ``overdue`` of them past their deadline."""
    from django.utils import timezone

    from accounts.models import User
    from cardgames.engines.rng import DealRng
    from games.catalog import get_engine
    from games.models import Match, Seat
    from games.services.fairness import seed_new

    alice = User.objects.create_user("bench-alice", password="x")
    bob = User.objects.create_user("bench-bob", password="x")
    engine = get_engine("gops")
    assert engine is not None
    options = engine.validate_options({}, 2)
    now = timezone.now()
    rows, seats = [], []
    for i in range(matches):
        seed, digest = seed_new()
        match_id = uuid.uuid4()
        state = engine.initial_state(2, options, DealRng(bytes.fromhex(seed), str(match_id), []))
        late = i < overdue
        rows.append(
            Match(
                id=match_id,
                game="gops",
                options=options,
                status="active",
                created_by=alice,
                state=state,
                step=1,
                version=3,
                phase_kind="simultaneous",
                acting_mask=3,
                scores=[0, 0],
                seed=seed,
                seed_sha256=digest,
                started_at=now,
                step_opened_at=now,
                time_control={
                    "per_step_seconds": 259200,
                    "on_timeout": "auto_move",
                    "auto_move_bot": "greedy",
                },
                deadline=now - timedelta(seconds=1) if late else now + timedelta(days=3),
            )
        )
        seats += [
            Seat(match_id=match_id, index=0, user=alice, accepted=True),
            Seat(match_id=match_id, index=1, user=bob, accepted=True),
        ]
    Match.objects.bulk_create(rows, batch_size=1000)
    Seat.objects.bulk_create(seats, batch_size=2000)
    return [row.id for row in rows[:overdue]]


def _sweep(matches: int, overdue: int) -> dict[str, float]:
    from django.db import connection
    from django.utils import timezone

    from games.locks import overdue_steps
    from games.models import Match
    from games.services.deadlines import overdue_sweep

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_match")
    now = timezone.now()
    find = []
    for _ in range(20):
        start = time.perf_counter()
        found = overdue_steps(now=now, limit=overdue)
        find.append(time.perf_counter() - start)
    assert len(found) == overdue
    start = time.perf_counter()
    resolved = overdue_sweep(limit=overdue)
    sweep = time.perf_counter() - start
    assert resolved == overdue, resolved
    assert Match.objects.filter(step=2).count() == overdue
    return {
        "find_median_ms": statistics.median(find) * 1000,
        "sweep_s": sweep,
        "per_step_ms": sweep / overdue * 1000,
    }


def _worker() -> subprocess.Popen[bytes]:
    """A real Celery worker process (solo pool), as the full stack runs it."""
    from config.celery import app

    app.control.purge()
    env = dict(os.environ, FACEDOWN_MIN_STEP_SECONDS="1")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--loglevel=warning",
        ],
        cwd=ROOT,
        env=env,
    )
    for _ in range(100):
        if app.control.ping(timeout=0.5):
            return worker
    worker.terminate()
    raise RuntimeError("the worker did not start")


def _live(count: int, rate: float) -> dict[str, float]:
    """Matches with 1-second steps where nobody moves, created at ``rate`` per second (0: as
    fast as possible, a burst): delay from each step-1 deadline to its timeout."""
    from django.test import override_settings

    with override_settings(FACEDOWN_MIN_STEP_SECONDS=1):
        return _live_delays(count, rate)


def _live_delays(count: int, rate: float) -> dict[str, float]:
    from accounts.models import User
    from games.models import Match, MatchEvent
    from games.services.matches import SeatSpec, match_create, match_join

    host = User.objects.create_user("live-host", password="x")
    guest = User.objects.create_user("live-guest", password="x")
    worker = _worker()
    try:
        ids = []
        began = time.monotonic()
        for i in range(count):
            if rate:
                time.sleep(max(0.0, began + i / rate - time.monotonic()))
            match = match_create(
                creator=host,
                game="gops",
                seats=[SeatSpec("me"), SeatSpec("user", "live-guest")],
                time_control={"per_step_seconds": 1, "on_timeout": "auto_move"},
                options={"num_cards": 3},
            )
            match_join(match_id=match.id, user=guest)
            ids.append(match.id)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            done = MatchEvent.objects.filter(match_id__in=ids, type="timeout", step=1)
            if done.values("match_id").distinct().count() == count:
                break
            time.sleep(0.2)
    finally:
        worker.terminate()
        worker.wait(30)
    delays = []
    for match_id in ids:
        opened = MatchEvent.objects.get(match_id=match_id, type="step_opened", step=1)
        timeout = MatchEvent.objects.filter(match_id=match_id, type="timeout", step=1).first()
        assert timeout is not None, "a live deadline never fired"
        deadline = opened.at + timedelta(seconds=1)
        delays.append((timeout.at - deadline).total_seconds())
    assert Match.objects.filter(pk__in=ids).count() == count
    delays.sort()
    return {
        "median_s": statistics.median(delays),
        "p99_s": delays[min(len(delays) - 1, int(len(delays) * 0.99))],
        "max_s": delays[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--overdue", type=int, default=1_000)
    parser.add_argument("--live", type=int, default=200)
    parser.add_argument(
        "--rate", type=float, default=20.0, help="live matches started per second (0: all at once)"
    )
    args = parser.parse_args()
    _database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    _seed(args.matches, args.overdue)
    seeded = time.perf_counter() - start
    sweep = _sweep(args.matches, args.overdue)
    live = _live(args.live, args.rate) if args.live else {}
    print(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    print(f"seeded {args.matches} active matches ({args.overdue} overdue) in {seeded:.1f} s")
    print(
        f"find overdue (SELECT … FOR UPDATE SKIP LOCKED), median of 20: "
        f"{sweep['find_median_ms']:.1f} ms"
    )
    print(
        f"sweep resolving {args.overdue} overdue steps: {sweep['sweep_s']:.2f} s "
        f"({sweep['per_step_ms']:.2f} ms per step)"
    )
    if live:
        print(
            f"live 1-second deadlines x{args.live} at {args.rate or 'max'}/s, "
            "delay after the deadline: "
            f"median {live['median_s'] * 1000:.0f} ms, p99 {live['p99_s'] * 1000:.0f} ms, "
            f"max {live['max_s'] * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
