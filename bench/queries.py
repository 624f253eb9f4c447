"""Benchmark: the hot queries on a large synthetic database, with their plans.

    .venv/bin/python bench/queries.py [--matches 200000] [--events-per-match 26] [--runs 15]
                                      [--db facedown_queries] [--keep] [--json out.json]

Drops and recreates its own database (``--db``, default ``facedown_queries``) on the local
PostgreSQL, migrated (a copy of bench/database.py's template), fills it in SQL
(``generate_series``: users, matches, seats, moves and events, a few heavy users with long
histories, a few stalled bot seats and overdue deadlines),
runs ``ANALYZE``, then runs each hot query the way the application issues it (the services'
own querysets and the match store's statements) and prints, for each, the median of
``--runs`` runs and a summary of ``EXPLAIN (ANALYZE, BUFFERS)`` of its main statement.
docs/benchmarks.md ("Queries at 200k matches") keeps the results.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.database import fresh_database  # noqa: E402

SERVER = "postgres://postgres@127.0.0.1:5432"
GAMES = ["gops", "hols-der-geier", "old-men-of-the-forest", "xato", "memory"]
#: Heavy users: ``bench-heavy-1`` sits in one match in ten, ``-2`` in one in fifty, and so on.
HEAVY = {1: 10, 2: 50, 3: 200}


def _fill_sql(matches: int, events_per_match: int, users: int) -> list[tuple[str, str]]:
    """(label, statement) pairs that fill the migrated schema. Match ``i`` has the id
    ``md5('m' || i)::uuid``; status by ``i % 100``: 0-84 finished, 85-92 active, 93-96 open,
    97-99 aborted. Seat 0 is a heavy user on every 10th/50th/200th match; seat 1 is a bot on
    one match in five, open on open matches, else another user."""
    m, e, u = matches, events_per_match, users
    status = (
        "CASE WHEN i % 100 < 85 THEN 'finished' WHEN i % 100 < 93 THEN 'active' "
        "WHEN i % 100 < 97 THEN 'open' ELSE 'aborted' END"
    )
    heavy = " ".join(f"WHEN i % {every} = {k - 1} THEN {k}" for k, every in HEAVY.items())
    seat0 = f"CASE {heavy} ELSE {len(HEAVY) + 1} + (hashint(i) % {u - len(HEAVY)}) END"
    seat1 = (
        f"{len(HEAVY) + 1} + ((hashint(i) + 1 + hashint(i + 7) % ({u - len(HEAVY) - 1})) "
        f"% {u - len(HEAVY)})"
    )
    return [
        (
            "helpers",
            "CREATE FUNCTION hashint(i integer) RETURNS integer IMMUTABLE LANGUAGE sql AS "
            "$$ SELECT abs(hashtext(i::text)) $$",
        ),
        (
            "users",
            "INSERT INTO accounts_user (id, password, is_superuser, username, first_name, "
            "last_name, email, is_staff, is_active, date_joined) "
            "SELECT g, '!', false, CASE WHEN g <= 3 THEN 'bench-heavy-' || g "
            "ELSE 'bench-user-' || g END, '', '', '', false, true, now() - interval '90 days' "
            f"FROM generate_series(1, {u}) g",
        ),
        (
            "users sequence",
            "SELECT setval('accounts_user_id_seq', (SELECT max(id) FROM accounts_user))",
        ),
        (
            "matches",
            "INSERT INTO games_match (id, game, options, status, protocol, disclose_submitted, "
            "created_by_id, state, step, version, last_seq, phase_kind, acting_mask, "
            "submitted_mask, scores, deadline, step_opened_at, time_control, seed, seed_sha256, "
            "result, created_at, started_at, finished_at, rated, chat) "
            f"SELECT md5('m' || i)::uuid, g.slug, g.options, s.status, 'sealed', true, "
            f"{seat0}, g.state, "
            "CASE WHEN s.status = 'open' THEN 0 ELSE 6 END, "
            f"CASE WHEN s.status = 'open' THEN 1 ELSE {e} END, "
            f"CASE WHEN s.status = 'open' THEN 1 ELSE {e} END, "
            "CASE WHEN s.status = 'active' THEN 'simultaneous' ELSE 'none' END, "
            "CASE WHEN s.status = 'active' THEN 3 ELSE 0 END, "
            # active: seat 0 has moved in half of them; a bot seat 1 has moved except in
            # the matches i = 86 (mod 1000): the stalled bots the sweep must find
            "CASE WHEN s.status = 'active' THEN (i % 2 = 0)::int | "
            "(CASE WHEN i % 5 = 1 AND i % 1000 <> 86 THEN 2 ELSE 0 END) ELSE 0 END, '[3, 2]', "
            # active: a deadline on correspondence matches, a few of them overdue
            "CASE WHEN s.status <> 'active' THEN NULL WHEN i % 1000 = 85 THEN now() - "
            "interval '1 minute' ELSE now() + (1 + i % 72) * interval '1 hour' END, "
            "CASE WHEN s.status = 'active' THEN now() - (i % 48) * interval '1 hour' END, "
            "CASE WHEN s.status = 'active' THEN '{\"per_step_seconds\": 259200, "
            '"on_timeout": "auto_move", "auto_move_bot": "greedy"}\'::jsonb END, '
            "md5('seed' || i) || md5('seed2' || i), md5('sha' || i) || md5('sha2' || i), "
            "CASE WHEN s.status = 'finished' THEN '{\"winners\": [0], \"scores\": [3, 2]}'::jsonb "
            "END, "
            f"now() - ({m} - i) * interval '30 seconds', "
            f"CASE WHEN s.status <> 'open' THEN now() - ({m} - i) * interval '30 seconds' "
            "+ interval '1 minute' END, "
            f"CASE WHEN s.status IN ('finished', 'aborted') THEN now() - ({m} - i) * "
            "interval '30 seconds' + interval '1 hour' END, true, true "
            f"FROM generate_series(1, {m}) i, LATERAL (SELECT {status} AS status) s, "
            f"bench_game g WHERE g.number = i % {len(GAMES)}",
        ),
        (
            "seats",
            "INSERT INTO games_seat (match_id, index, user_id, invited, bot, bot_options, "
            "bot_memory, accepted, client_seed, forfeited, controlled_by, awaiting_move) "
            f"SELECT md5('m' || i)::uuid, 0, {seat0}, false, '', '{{}}'::jsonb, '{{}}'::jsonb, "
            f"true, '', false, 'player', false FROM generate_series(1, {m}) i "
            "UNION ALL "
            "SELECT md5('m' || i)::uuid, 1, "
            f"CASE WHEN i % 100 BETWEEN 93 AND 96 OR i % 5 = 1 THEN NULL ELSE {seat1} END, "
            "false, CASE WHEN i % 5 = 1 AND i % 100 NOT BETWEEN 93 AND 96 THEN 'greedy' "
            "ELSE '' END, '{}', '{}', i % 100 NOT BETWEEN 93 AND 96, '', false, "
            "CASE WHEN i % 5 = 1 AND i % 100 NOT BETWEEN 93 AND 96 THEN 'bot' ELSE 'player' END, "
            f"false FROM generate_series(1, {m}) i",
        ),
        # The seats the active matches wait for, set as the migration that added the flag
        # sets it (the unit of work keeps it from then on).
        ("awaited seats", import_module("games.migrations.0005_hot_query_indexes").AWAITING),
        (
            "moves",
            "INSERT INTO games_move (match_id, step, seat, payload, commitment, salt, source, "
            "receipt, receipt_salt, reveal_receipt, reveal_receipt_salt, submitted_at) "
            "SELECT md5('m' || i)::uuid, st, se, jsonb_build_object('card', 1 + (i + st) % 13), "
            "'', '', 'player', jsonb_build_object('key_id', 'k1', 'sig', md5(i || '/' || st "
            "|| '/' || se), 'step', st, 'seat', se), md5(st || 'r' || i), NULL, '', "
            f"now() - ({m} - i) * interval '30 seconds' + st * interval '1 minute' "
            f"FROM generate_series(1, {m}) i, generate_series(1, 5) st, generate_series(0, 1) se "
            "WHERE i % 100 NOT BETWEEN 93 AND 96",
        ),
        (
            "events",
            "INSERT INTO games_matchevent (match_id, seq, type, step, at, show_at, data, "
            "private, table_only) "
            "SELECT md5('m' || i)::uuid, q, CASE WHEN q = 1 THEN 'match_created' WHEN q % 3 = 0 "
            "THEN 'step_resolved' ELSE 'move_submitted' END, q / 3, "
            f"now() - ({m} - i) * interval '30 seconds' + q * interval '10 seconds', q % 3 = 0, "
            "jsonb_build_object('seat', q % 2, 'cards', jsonb_build_array(q, q + 1)), "
            "CASE WHEN q % 3 = 1 THEN jsonb_build_object('0', jsonb_build_object('hand', "
            "jsonb_build_array(1, 2, 3))) ELSE '{}' END, false "
            f"FROM generate_series(1, {m}) i, generate_series(1, {e}) q "
            "WHERE i % 100 NOT BETWEEN 93 AND 96 "
            "UNION ALL "
            "SELECT md5('m' || i)::uuid, 1, 'match_created', NULL, now(), true, '{}', '{}', false "
            f"FROM generate_series(1, {m}) i WHERE i % 100 BETWEEN 93 AND 96",
        ),
        # As autovacuum leaves a table at rest: statistics, and the visibility map that lets
        # index-only scans skip the heap.
        ("vacuum analyze", "VACUUM ANALYZE"),
    ]


def fill(matches: int, events_per_match: int) -> dict[str, float]:
    from django.db import connection

    users = max(200, matches // 20)
    took: dict[str, float] = {}
    with connection.cursor() as cursor:
        # Each game's real options and opening state (the match read runs the engine's view).
        cursor.execute(
            "CREATE TABLE bench_game (number int, slug text, options jsonb, state jsonb)"
        )
        for number, (slug, options, state) in enumerate(_openings()):
            cursor.execute(
                "INSERT INTO bench_game VALUES (%s, %s, %s, %s)",
                [number, slug, json.dumps(options), json.dumps(state)],
            )
        cursor.execute("SET synchronous_commit = off")
        cursor.execute("SET maintenance_work_mem = '512MB'")
        # Bulk loading into random-order B-trees (uuid keys) is what made the fill slow:
        # the secondary indexes and the constraints are dropped, then built once at the end.
        start = time.perf_counter()
        rebuild = _drop_indexes(cursor)
        took["drop indexes"] = time.perf_counter() - start
        steps = _fill_sql(matches, events_per_match, users)
        steps.insert(-1, ("indexes and constraints", ";\n".join(rebuild)))
        for label, sql in steps:
            start = time.perf_counter()
            cursor.execute(sql)
            took[label] = time.perf_counter() - start
            print(f"  fill {label}: {took[label]:.1f} s", file=sys.stderr, flush=True)
    return took


FILLED = ("accounts_user", "games_match", "games_seat", "games_move", "games_matchevent")


def _drop_indexes(cursor: Any) -> list[str]:
    """Drop the filled tables' foreign keys, unique constraints and secondary indexes (not
    their primary keys); returns the statements that create them again, in order."""
    tables = ", ".join(f"'{t}'::regclass" for t in FILLED)
    cursor.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), contype "
        f"FROM pg_constraint WHERE conrelid IN ({tables}) AND contype IN ('u', 'f')"
    )
    constraints = cursor.fetchall()
    cursor.execute(
        "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
        f"WHERE indrelid IN ({tables}) AND NOT indisprimary "
        "AND indexrelid NOT IN (SELECT conindid FROM pg_constraint)"
    )
    indexes = cursor.fetchall()
    for table, name, _, _kind in sorted(constraints, key=lambda c: c[3] != "f"):
        cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    for name, _ in indexes:
        cursor.execute(f"DROP INDEX {name}")
    unique = [c for c in constraints if c[3] == "u"]
    foreign = [c for c in constraints if c[3] == "f"]
    return [
        *(definition for _, definition in indexes),
        *(f'ALTER TABLE {t} ADD CONSTRAINT "{n}" {d}' for t, n, d, _ in unique + foreign),
    ]


def _openings() -> list[tuple[str, Any, Any]]:
    from cardgames.engines.protocol import InvalidOptions
    from cardgames.engines.rng import DealRng
    from games.catalog import get_engine

    openings = []
    for slug in GAMES:
        engine = get_engine(slug)
        assert engine is not None
        for players in range(2, 7):  # the fewest players the game takes
            try:
                options = engine.validate_options({}, players)
                break
            except InvalidOptions:
                continue
        state = engine.initial_state(players, options, DealRng(bytes(32), "bench", []))
        openings.append((slug, options, state))
    return openings


@dataclass
class Case:
    name: str
    #: Runs the read as the application does (the services' own code).
    run: Callable[[], Any]
    #: The main statement's queryset, for EXPLAIN; run inside a transaction when ``atomic``.
    explain: Callable[[], Any]
    atomic: bool = False


def _cases() -> list[Case]:
    from django.db import transaction
    from django.utils import timezone
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from accounts.models import User
    from games import match_store
    from games.api.matches import MatchPagination
    from games.locks import match_lock_for_change, overdue_claim_query
    from games.models import Match, MatchEvent, Move
    from games.services import presenters, reads
    from games.services.audit import audit_transcript
    from games.services.bot_seats import stalled_bot_steps

    heavy = User.objects.get(username="bench-heavy-1")
    typical = User.objects.get(username=f"bench-user-{User.objects.count() // 2}")
    finished = (
        Match.objects.filter(status="finished", seats__user=heavy).order_by("-created_at").first()
    )
    active = Match.objects.filter(status="active", seats__user=heavy).order_by("created_at").first()
    assert finished is not None and active is not None
    factory = APIRequestFactory()

    def page(user: User, **filters: Any) -> Callable[[], list[Match]]:
        def run() -> list[Match]:
            request = Request(factory.get("/api/v1/matches"))
            queryset = reads.match_list(user=user, **filters)
            return list(MatchPagination().paginate_queryset(queryset, request) or [])

        return run

    def page_sql(user: User, **filters: Any) -> Callable[[], Any]:
        return lambda: reads.match_list(user=user, **filters).order_by("-created_at")[:51]

    def detail() -> Any:
        snapshot = reads.match_snapshot(match_id=active.pk, user=heavy)
        return presenters.match_resource(snapshot)

    def events_page() -> Any:
        snapshot = reads.match_snapshot(match_id=finished.pk, user=heavy)
        return presenters.events_for_viewer(snapshot=snapshot, after=0)

    def sweep_deadlines() -> Any:
        with transaction.atomic():
            return list(overdue_claim_query(now=timezone.now())[:1])

    def lock() -> Any:
        with transaction.atomic():
            return match_lock_for_change(active.pk)

    return [
        Case("list default, heavy user", page(heavy), page_sql(heavy)),
        Case("list default, typical user", page(typical), page_sql(typical)),
        Case(
            "list mine finished, heavy",
            page(heavy, mine=True, status="finished"),
            page_sql(heavy, mine=True, status="finished"),
        ),
        Case(
            "awaiting_me, heavy user",
            page(heavy, awaiting_me=True),
            page_sql(heavy, awaiting_me=True),
        ),
        Case(
            "awaiting_me, typical user",
            page(typical, awaiting_me=True),
            page_sql(typical, awaiting_me=True),
        ),
        Case(
            "sweep: stalled bots",
            lambda: list(stalled_bot_steps(now=timezone.now())),
            lambda: stalled_bot_steps(now=timezone.now()),
        ),
        Case(
            "sweep: overdue deadline claim",
            sweep_deadlines,
            lambda: overdue_claim_query(now=timezone.now())[:1],
            atomic=True,
        ),
        Case(
            "match lock (move path)",
            lock,
            lambda: match_store.lock_queryset(active.pk),
            atomic=True,
        ),
        Case("match detail read", detail, lambda: match_store.snapshot_queryset(active.pk, False)),
        Case(
            "events page (200)",
            events_page,
            lambda: MatchEvent.objects.filter(match=finished, seq__gt=0).order_by("seq")[:201],
        ),
        Case(
            "audit transcript",
            lambda: audit_transcript(match_id=finished.pk),
            lambda: Move.objects.filter(match=finished).order_by("step", "seat"),
        ),
    ]


def _plan_summary(plan: str) -> str:
    """The plan's nodes without their cost estimates, the top node's buffers, and the
    planning and execution times: a compact summary."""
    lines: list[str] = []
    for line in plan.splitlines():
        if "(cost=" in line:
            head, _, rest = line.partition("  (cost=")
            lines.append(head.rstrip() + _actual(rest))
        elif line.strip().startswith(("Planning Time", "Execution Time")):
            lines.append(line.strip())
        elif line.strip().startswith("Buffers:") and len(lines) == 1:
            lines.append("  " + line.strip())
    return "\n".join(lines)


def _actual(text: str) -> str:
    if "(actual time=" not in text:
        return "  (never executed)" if "never executed" in text else ""
    timing, _, rest = text.split("(actual time=")[1].split(")")[0].partition(" ")
    return f"  ({timing.split('..')[1]} ms, {rest})"


def _median_ms(run: Callable[[], Any], runs: int) -> tuple[float, float]:
    run()  # warm: plan cache, prepared statements, pages
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2), round(max(times), 2)


def measure(runs: int) -> list[dict[str, Any]]:
    from django.db import connection, transaction

    results = []
    for case in _cases():
        with transaction.atomic():  # a FOR UPDATE compiles only inside one
            sql, params = case.explain().query.sql_with_params()

        def statement(sql: str = sql, params: Any = params, atomic: bool = case.atomic) -> Any:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql, params)
                return cursor.fetchall()

        returned = case.run()
        found = len(returned) if isinstance(returned, (list, tuple)) else int(bool(returned))
        sql_median, sql_max = _median_ms(statement, runs)
        app_median, _ = _median_ms(case.run, runs)
        with transaction.atomic():
            plan = case.explain().explain(analyze=True, buffers=True)
        results.append(
            {
                "name": case.name,
                "sql_median_ms": sql_median,
                "sql_max_ms": sql_max,
                "app_median_ms": app_median,
                "found": found,
                "plan": plan,
            }
        )
        print(f"{case.name:34} sql {sql_median:8.2f} ms  app {app_median:8.2f} ms", file=sys.stderr)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--events-per-match", type=int, default=26)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--db", default="facedown_queries")
    parser.add_argument("--reuse", action="store_true", help="skip the fill: use --db as it is")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--plans", action="store_true", help="print the full plans")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = f"{SERVER}/{args.db}"
    os.environ.pop("REDIS_URL", None)
    os.environ["FACEDOWN_TASK_RUNNER"] = "off"
    # A production configuration of its own (the audit reads the receipt-signing key).
    os.environ.setdefault("DJANGO_SECRET_KEY", os.urandom(32).hex())
    # testserver: the host of the RequestFactory requests the list cases are measured with
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
    os.environ.setdefault("FACEDOWN_SIGNING_KEY", os.urandom(32).hex())
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    fill_took: dict[str, float] = {}
    if not args.reuse:
        fresh_database(args.db, SERVER)  # migrated (bench/database.py)
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if not args.reuse:
        fill_took = fill(args.matches, args.events_per_match)
    else:
        call_command("migrate", verbosity=0)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    with connection.cursor() as cursor:
        # Exact counts (a few seconds at full size): the statistics' n_live_tup lags and was
        # once seen at twice the truth right after the fill.
        rows = {}
        for table in ("games_match", "games_matchevent", "games_move", "games_seat"):
            cursor.execute(f"SELECT count(*) FROM {table}")
            rows[table] = cursor.fetchone()[0]
        cursor.execute(
            "SELECT i.relname, pg_relation_size(i.oid) FROM pg_class i JOIN pg_index x "
            "ON x.indexrelid = i.oid JOIN pg_class t ON t.oid = x.indrelid WHERE t.relname "
            "LIKE 'games_%' ORDER BY 2 DESC"
        )
        indexes = {name: size for name, size in cursor.fetchall()}
    results = measure(args.runs)
    print(f"rows: {rows}")
    steps = {k: round(v, 1) for k, v in fill_took.items()}
    print(f"fill: {sum(fill_took.values()):.0f} s  {json.dumps(steps)}")
    print("indexes (MB): " + ", ".join(f"{k} {v / 2**20:.0f}" for k, v in indexes.items()))
    print()
    print("| query | SQL median ms | SQL max ms | whole read, median ms |")
    print("|---|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['name']} | {r['sql_median_ms']:.2f} | {r['sql_max_ms']:.2f} "
            f"| {r['app_median_ms']:.2f} |"
        )
    print()
    for result in results:
        print(f"## {result['name']}")
        print(result["plan"] if args.plans else _plan_summary(result["plan"]))
        print()
    if args.drop:
        connection.close()
        import psycopg

        with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
    if args.json:
        args.json.write_text(
            json.dumps(
                {"rows": rows, "fill": fill_took, "indexes": indexes, "results": results}, indent=1
            )
        )


if __name__ == "__main__":
    main()
