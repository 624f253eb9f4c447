"""Benchmark: the deadline sweep over many active matches whose seats run banks (Fischer and
byo-yomi clocks), a few of them overdue.

    .venv/bin/python bench/clocks.py [--matches 200000] [--overdue 1000]
                                     [--forms fischer,byoyomi] [--db facedown_bench_clocks]
                                     [--drop]

Drops and recreates its own database (``--db``) on the local PostgreSQL, migrated (a copy of
bench/database.py's template). Two
template matches per form are started through the services (2-player GOPS, nobody has moved),
then copied in SQL (``generate_series``) with their clocks rewritten: every seat's clock
running, started a little while ago, so the sweep's deadline (the earliest expiry) is ahead;
for ``--overdue`` matches both seats' banks (with every byo-yomi period) ran out a few seconds
ago. Banks are under a day, so no automatic vacation takes over. ``--forms per_step`` fills the
same database with per-step matches instead: the baseline the clocks are compared with.

Measures what bench/deadlines.py measures: the search (``overdue_steps``, the partial index of
active deadlines; median of 20), the sweep's claim query (median of 20), and one sweep
resolving every overdue step (both seats timed out, stand-in moves, the next step's clocks).
docs/benchmarks.md ("Deadlines with clocks") keeps the results.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.database import fresh_database  # noqa: E402

SERVER = "postgres://postgres@127.0.0.1:5432"
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/13")
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
# The production checks (core/checks.py) want these; a benchmark makes its own.
os.environ.setdefault("DJANGO_SECRET_KEY", os.urandom(32).hex())
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")
os.environ.setdefault("FACEDOWN_SIGNING_KEY", os.urandom(32).hex())
# The sweep's follow-up jobs (notifications, live pushes) are not what is measured.
os.environ.setdefault("FACEDOWN_TASK_RUNNER", "off")

#: Time controls under a day (no automatic vacation), in seconds.
FORMS: dict[str, dict[str, Any]] = {
    "fischer": {
        "kind": "fischer",
        "initial_seconds": 3600,
        "increment_seconds": 60,
        "max_seconds": 7200,
    },
    "byoyomi": {"kind": "byoyomi", "main_seconds": 3600, "periods": 5, "period_seconds": 300},
    "per_step": {"kind": "per_step", "per_step_seconds": 3600},
}


def _drop(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _templates(forms: list[str]) -> list[Any]:
    """One started 2-player GOPS per form, through the services (state, seats, clocks)."""
    from accounts.models import User
    from games.services.matches import SeatSpec, match_create, match_join

    alice = User.objects.create_user("bench-alice", password="x")
    bob = User.objects.create_user("bench-bob", password="x")
    User.objects.filter(pk__in=[alice.pk, bob.pk]).update(auto_vacation=False)
    ids = []
    for form in forms:
        match = match_create(
            creator=alice,
            game="gops",
            seats=[SeatSpec("me"), SeatSpec("user", "bench-bob")],
            time_control={**FORMS[form], "on_timeout": "auto_move"},
        )
        match_join(match_id=match.id, user=bob)
        ids.append(match.id)
    return ids


def _columns(cursor: Any, table: str) -> list[str]:
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "ORDER BY ordinal_position",
        [table],
    )
    return [name for (name,) in cursor.fetchall()]


def _fill(matches: int, overdue: int, forms: list[str], now: datetime) -> None:
    """Copy the templates: match ``i`` is ``md5('c' || i)``, of form ``i % len(forms)``; the
    first ``overdue`` ran out 1-60 s ago, the others started up to 30 minutes ago."""
    from django.db import connection

    templates = _templates(forms)
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'UTC'")
        copied = [
            c for c in _columns(cursor, "games_match") if c not in ("id", "clocks", "deadline")
        ]
        # Each seat's clock: its bank as the template holds it, started ``ago`` before now,
        # ``ago`` = the whole bank (and every period) plus a few seconds when overdue.
        ago = (
            "(CASE WHEN g.i <= %(overdue)s THEN (t.total_ms / 1000 + 1 + g.i %% 60)"
            " ELSE g.i %% 1800 END) * interval '1 second'"
        )
        since = f"to_json(%(now)s::timestamptz - {ago}) #>> '{{}}'"
        cursor.execute(
            f"""
            WITH t AS (
                SELECT m.*, row_number() OVER (ORDER BY m.created_at) - 1 AS form,
                    (m.clocks -> 0 ->> 'bank')::bigint
                    + coalesce((m.clocks -> 0 ->> 'periods')::bigint, 0)
                      * coalesce((m.time_control ->> 'period_seconds')::bigint, 0) * 1000
                      AS total_ms
                FROM games_match m WHERE m.id = ANY(%(templates)s)
            )
            INSERT INTO games_match (id, clocks, deadline, {", ".join(copied)})
            SELECT md5('c' || g.i)::uuid,
                jsonb_build_array(
                    (t.clocks -> 0) || jsonb_build_object('since', {since}),
                    (t.clocks -> 1) || jsonb_build_object('since', {since})
                ),
                %(now)s::timestamptz - {ago} + t.total_ms * interval '1 millisecond',
                {", ".join(f"t.{c}" for c in copied)}
            FROM generate_series(1, %(matches)s) AS g(i)
            JOIN t ON t.form = g.i %% %(forms)s
            """,
            {
                "templates": templates,
                "matches": matches,
                "overdue": overdue,
                "forms": len(forms),
                "now": now,
            },
        )
        seat_columns = [c for c in _columns(cursor, "games_seat") if c not in ("id", "match_id")]
        cursor.execute(
            f"""
            INSERT INTO games_seat (match_id, {", ".join(seat_columns)})
            SELECT m.id, {", ".join(f"s.{c}" for c in seat_columns)}
            FROM games_match m
            JOIN games_match t ON t.id = ANY(%(templates)s) AND t.time_control = m.time_control
            JOIN games_seat s ON s.match_id = t.id
            WHERE NOT m.id = ANY(%(templates)s)
            """,
            {"templates": templates},
        )
        # The templates themselves are not part of the measure.
        cursor.execute("UPDATE games_match SET status = 'aborted' WHERE id = ANY(%s)", [templates])
        cursor.execute("ANALYZE")


def _median_ms(action: Any, runs: int = 20) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _sweep(overdue: int, now: datetime) -> dict[str, float]:
    from django.db import transaction

    from games.locks import overdue_claim_query, overdue_steps
    from games.models import Match, MatchEvent
    from games.services.deadlines import overdue_sweep

    assert len(overdue_steps(now=now, limit=overdue + 1)) == overdue

    def claim() -> None:
        with transaction.atomic():
            assert overdue_claim_query(now=now).first() is not None

    found = _median_ms(lambda: overdue_steps(now=now, limit=overdue))
    claimed = _median_ms(claim)
    start = time.perf_counter()
    resolved = overdue_sweep(limit=overdue, now=now)
    sweep = time.perf_counter() - start
    assert resolved == overdue, resolved
    assert Match.objects.filter(step=2, status="active").count() == overdue
    assert MatchEvent.objects.filter(type="timeout").count() == 2 * overdue
    assert not overdue_steps(now=now, limit=1)
    return {"find_ms": found, "claim_ms": claimed, "sweep_s": sweep}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--overdue", type=int, default=1_000)
    parser.add_argument("--forms", default="fischer,byoyomi")
    parser.add_argument("--db", default="facedown_bench_clocks")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    args = parser.parse_args()
    forms = args.forms.split(",")
    assert all(form in FORMS for form in forms), forms
    fresh_database(args.db, SERVER)  # migrated (bench/database.py)
    os.environ["DATABASE_URL"] = f"{SERVER}/{args.db}"
    import django

    django.setup()
    from django.utils import timezone

    now = timezone.now()
    start = time.perf_counter()
    _fill(args.matches, args.overdue, forms, now)
    filled = time.perf_counter() - start
    result = _sweep(args.overdue, now + timedelta(seconds=1))
    print(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    print(
        f"filled {args.matches} active 2-player GOPS ({'/'.join(forms)}), "
        f"{args.overdue} overdue, in {filled:.1f} s"
    )
    print(f"find overdue (overdue_steps), median of 20: {result['find_ms']:.1f} ms")
    print(f"sweep claim (one match, SKIP LOCKED), median of 20: {result['claim_ms']:.2f} ms")
    print(
        f"sweep resolving {args.overdue} overdue steps (2 timeouts each): "
        f"{result['sweep_s']:.2f} s ({result['sweep_s'] / args.overdue * 1000:.2f} ms per step)"
    )
    if args.drop:
        from django.db import connections

        connections.close_all()
        _drop(args.db)


if __name__ == "__main__":
    main()
