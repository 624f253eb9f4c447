"""Facedown behind PgBouncer in transaction mode (Debian's 1.18): the production web server,
started with ``FACEDOWN_DB_POOLER=transaction`` and its ``DATABASE_URL`` on the pooler, plays a
match with real moves (two humans and a bot) whose transcript verifies; the web's timeouts reach
PostgreSQL through the pooler (a move on a match locked elsewhere is answered 503 within the lock
timeout), and so do a role's defaults set by ``manage.py database_role_timeouts``. The pooler
refuses what the worker used to send (its timeouts as an ``options`` startup parameter).

The pooler is the test's own (tests/machines/pooler.py); this test commits to the test
database, which is emptied afterwards."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from bench.pooler import PgBouncer
from games.models import Move
from games.verify import verify_transcript
from tests.faults.processes import (
    Answer,
    CeleryWorker,
    RedisServer,
    Service,
    WebServer,
    http_call,
    service_env,
)
from tests.machines.pooler import pgbouncer
from tests.players import make_player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

API = "/api/v1"
LOCK_TIMEOUT_MS = 500
ROLES = ("facedown_pooler_test_web", "facedown_pooler_test_worker")


@pytest.fixture(scope="module")
def pooler(django_db_setup: None) -> Iterator[PgBouncer]:
    """In front of the test database (which exists once ``django_db_setup`` made it)."""
    db = connection.settings_dict
    # One server connection for the web server's threads and the worker: a prepared statement
    # (psycopg names them _pg3_0, _pg3_1, … on every connection) would meet another client's.
    bouncer = pgbouncer(
        host=db["HOST"] or "127.0.0.1",
        port=int(db["PORT"] or 5432),
        users=[db["USER"], *ROLES],
        pool_size=1,
    )
    try:
        yield bouncer
    finally:
        bouncer.stop()


@dataclass
class Pooled:
    web: WebServer
    worker: CeleryWorker


@pytest.fixture(scope="module")
def pooled(pooler: PgBouncer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pooled]:
    """A web server and a Celery worker, both on the pooler, and a Redis of the test's own."""
    db = connection.settings_dict
    home: Path = tmp_path_factory.mktemp("pooled")
    redis = RedisServer()
    redis.start()
    env = service_env(
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_SECRET_KEY="pooled-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=pooler.url(db["NAME"], db["USER"]),
        FACEDOWN_DB_POOLER="transaction",
        FACEDOWN_WEB_LOCK_TIMEOUT_MS=str(LOCK_TIMEOUT_MS),
        REDIS_URL=redis.url,
        FACEDOWN_SIGNING_KEY="6c" * 32,
        FACEDOWN_VAR_DIR=str(home / "var"),
        **{
            f"FACEDOWN_THROTTLE_{scope}": "100000/min"
            for scope in ("ANON", "USER", "MOVES", "READS", "MATCH_CREATE")
        },
    )
    started: list[Service] = []
    try:
        web = WebServer(env=env, cwd=home, log=home / "web.log", workers=1, threads=2)
        started.append(web)
        worker = CeleryWorker(env=env, cwd=home, log=home / "worker.log", name="pooled")
        started.append(worker)
        web.ready()
        worker.ready()
        yield Pooled(web, worker)
    finally:
        for service in started:
            service.stop(10)
        redis.stop()
        for service in started:
            if "Traceback" in service.output():
                print(f"--- {service.log.name}\n{service.output()[-3000:]}")


def _call(web: WebServer, method: str, path: str, body: Any = None, **options: Any) -> Answer:
    return http_call(web.port, method, API + path, body, **options)


def _transactions(pooler: PgBouncer, database: str) -> int:
    return sum(
        int(row["total_xact_count"])
        for row in pooler.admin("SHOW STATS")
        if row["database"] == database
    )


def test_a_match_is_played_through_the_pooler(pooler: PgBouncer, pooled: Pooled) -> None:
    """A human's moves through the web server, a bot's through the worker: both pooled."""
    web = pooled.web
    database = connection.settings_dict["NAME"]
    before = _transactions(pooler, database)
    alice = make_player()
    created = _call(
        web,
        "POST",
        "/matches",
        {"game": "gops", "options": {"num_cards": 4}, "seats": ["me", {"bot": "greedy"}]},
        token=alice.token,
    )
    assert created.status == 201, created.body
    match_id = created.body["id"]
    sent: set[int] = set()
    end = time.monotonic() + 60
    while True:
        assert time.monotonic() < end, "the match did not finish"
        view = _call(web, "GET", f"/matches/{match_id}", token=alice.token).body
        if view["status"] != "active":
            break
        if view["legal_moves"] and view["step"] not in sent:
            sent.add(view["step"])
            move = {"step": view["step"], "move": view["legal_moves"][-1]}
            answer = _call(web, "POST", f"/matches/{match_id}/moves", move, token=alice.token)
            assert answer.status in (200, 202), answer.body
        time.sleep(0.05)
    assert view["status"] == "finished"
    sources = list(Move.objects.filter(match_id=match_id).values_list("source", flat=True))
    # The last of the four cards is played by itself ("forced").
    assert sources.count("player") == len(sent) == 3 and sources.count("bot") == 3
    audit = _call(web, "GET", f"/matches/{match_id}/audit", token=alice.token)
    key = _call(web, "GET", "/fairness/key").body["public_key"]
    report = verify_transcript(audit.body, public_keys=[key])
    assert report.ok, report.problems
    # All of it went through the pooler, a transaction at a time.
    assert _transactions(pooler, database) - before > 2 * len(sources)
    assert "succeeded in" in pooled.worker.output()


def test_the_web_lock_timeout_reaches_postgresql_through_the_pooler(pooled: Pooled) -> None:
    web = pooled.web
    alice, bob = make_player(), make_player()
    created = _call(
        web,
        "POST",
        "/matches",
        {"game": "gops", "options": {"num_cards": 3}, "seats": ["me", {"user": bob.name}]},
        token=alice.token,
    )
    match_id = created.body["id"]
    assert _call(web, "POST", f"/matches/{match_id}/join", {}, token=bob.token).status == 200
    view = _call(web, "GET", f"/matches/{match_id}", token=alice.token).body
    move = {"step": view["step"], "move": view["legal_moves"][0]}
    db = connection.settings_dict
    with psycopg.connect(f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} "
                         f"user={db['USER']} dbname={db['NAME']}") as holder:  # fmt: skip
        holder.execute("SELECT 1 FROM games_match WHERE id = %s FOR UPDATE", (match_id,))
        began = time.monotonic()
        refused = _call(web, "POST", f"/matches/{match_id}/moves", move, token=alice.token)
        took = time.monotonic() - began
        holder.rollback()
    assert refused.status == 503, refused.body
    assert refused.code == "service_unavailable" and refused.headers["retry-after"] == "1"
    assert LOCK_TIMEOUT_MS / 1000 <= took < LOCK_TIMEOUT_MS / 1000 + 2
    assert not Move.objects.filter(match_id=match_id).exists()
    accepted = _call(web, "POST", f"/matches/{match_id}/moves", move, token=alice.token)
    assert accepted.status in (200, 202), accepted.body


def _shown(pooler: PgBouncer, database: str, role: str) -> list[str]:
    with psycopg.connect(pooler.dsn(database, role), autocommit=True) as pooled:
        return [
            str(pooled.execute(f"SHOW {name}").fetchone()[0])  # type: ignore[call-overload,index]
            for name in ("statement_timeout", "lock_timeout")
        ]


def test_role_timeouts_reach_every_pooled_session_and_startup_options_are_refused(
    pooler: PgBouncer, settings: Any
) -> None:
    """As docs/deployment.md has it: each role sets its own limits (the command connected as
    it: here the test's session as that role), or a superuser sets another role's."""
    database = connection.settings_dict["NAME"]
    settings.FACEDOWN_WEB_STATEMENT_TIMEOUT_MS = 7000
    settings.FACEDOWN_WEB_LOCK_TIMEOUT_MS = 1500
    with connection.cursor() as cursor:
        for role in ROLES:
            cursor.execute(f'DROP ROLE IF EXISTS "{role}"')
            cursor.execute(f'CREATE ROLE "{role}" LOGIN')
    try:
        with connection.cursor() as cursor:
            cursor.execute(f'SET ROLE "{ROLES[0]}"')
        try:
            call_command("database_role_timeouts", "web")
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET ROLE")
        call_command("database_role_timeouts", "worker", role=ROLES[1])
        assert _shown(pooler, database, ROLES[0]) == ["7s", "1500ms"]
        assert _shown(pooler, database, ROLES[1]) == ["30s", "10s"]  # the worker's defaults
    finally:
        with connection.cursor() as cursor:
            for role in ROLES:
                cursor.execute(f'DROP ROLE IF EXISTS "{role}"')
    # What the worker used to send: PgBouncer refuses it.
    with pytest.raises(psycopg.OperationalError, match="options"):
        psycopg.connect(
            pooler.dsn(database, connection.settings_dict["USER"]),
            options="-c statement_timeout=1000",
        ).close()
