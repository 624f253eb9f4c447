"""A Celery worker killed with SIGKILL in the middle of a task: the work is still done, once.

Real workers (``celery worker`` processes, prefork pool) on a Redis the test starts on a free
port, against the test database. The task is caught mid-flight deterministically: the test holds
the match row locked from its own connection, so the task blocks inside its unit of work, and
``pg_blocking_pids`` shows the moment it is there. Then:

- **the pool process running a bot's move is killed**: ``acks_late`` with
  ``reject_on_worker_lost`` puts the message back, the worker's next pool process runs it again,
  and the bot's move is recorded exactly once;
- **the whole worker is killed while it expires a deadline** (main process and pool together,
  as when a machine's worker is OOM-killed): the message stays unacknowledged in Redis for
  redelivery, a second worker's sweep expires the step, and a late duplicate of the task
  changes nothing.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis as redis_client
from celery import Celery
from django.conf import settings as django_settings

from games.models import Match, MatchEvent, Move
from tests.clocks import overdue
from tests.faults.processes import ROOT, CeleryWorker, RedisServer, wait_until
from tests.players import make_player

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _dsn() -> str:
    db = django_settings.DATABASES["default"]
    return (
        f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} "
        f"user={db['USER']} dbname={db['NAME']}"
    )


class Worker(CeleryWorker):
    """``celery worker`` in its own session (so the test can kill it, pool and all), on the
    test's Redis and the test database."""

    def __init__(self, redis: RedisServer, log: Path) -> None:
        db = django_settings.DATABASES["default"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env.update(
            DJANGO_SETTINGS_MODULE="config.test_settings",
            DATABASE_URL=(
                f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
                f"/{db['NAME']}"
            ),
            REDIS_URL=redis.url,
            CELERY_BROKER_URL=redis.url,  # not the broker this run was given
            FACEDOWN_TASK_RUNNER="celery",
            PYTHONPATH=str(ROOT),
        )
        super().__init__(env=env, cwd=ROOT, log=log, name=f"w-{log.stem}")
        self.ready(30)

    def kill_all(self) -> None:
        self.kill()


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def workers(redis: RedisServer, tmp_path: Path) -> Iterator[Callable[[str], Worker]]:
    started: list[Worker] = []

    def start(name: str) -> Worker:
        worker = Worker(redis, tmp_path / f"{name}.log")
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
def producer(
    redis: RedisServer, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Celery]:
    """Sends tasks to the test's Redis; the test process itself enqueues nothing."""
    settings.FACEDOWN_TASK_RUNNER = "off"
    if os.environ.get("CELERY_BROKER_URL"):  # Celery reads it before the app's broker
        monkeypatch.setenv("CELERY_BROKER_URL", redis.url)
    # Not the current app: shared tasks elsewhere in this process must keep publishing through
    # the project's app, not through this one (closed at the end).
    app = Celery("facedown-fault-test", broker=redis.url, set_as_current=False)
    yield app
    app.close()


class RowLock:
    """The match row locked from the test's own connection: a task that needs it waits."""

    def __init__(self, match_id: str) -> None:
        self.conn = psycopg.connect(_dsn())
        self.pid = self.conn.info.backend_pid
        self.conn.execute("SELECT 1 FROM games_match WHERE id = %s FOR UPDATE", (match_id,))

    def waiting(self) -> set[int]:
        """Backends of this database waiting for a lock right now: for this row's lock, or
        queued behind one that is (a second waiter waits on the first)."""
        with psycopg.connect(_dsn(), autocommit=True) as probe:
            rows = probe.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND cardinality(pg_blocking_pids(pid)) > 0"
            ).fetchall()
        return {pid for (pid,) in rows}

    def release(self) -> None:
        self.conn.rollback()
        self.conn.close()


def _send(app: Celery, task: str, *args: Any) -> None:
    app.send_task(f"games.tasks.{task}", args=args)


def test_pool_process_killed_inside_a_bot_move_is_redelivered_and_moves_once(
    workers: Callable[[str], Worker], producer: Celery
) -> None:
    alice = make_player()
    created = alice.create("gops", ["me", {"bot": "greedy"}], options={"num_cards": 5})
    match_id = created.json()["id"]
    worker = workers("first")
    [first_child] = worker.pool()
    lock = RowLock(match_id)
    try:
        _send(producer, "bot_moves_task", match_id, 1)
        wait_until(lambda: len(lock.waiting()) == 1, 20, "the task to wait for the match lock")
        [first_backend] = lock.waiting()
        os.kill(first_child, signal.SIGKILL)  # mid-task, inside match_change
        # the message comes back and a fresh pool process runs it: it waits on the lock again
        wait_until(
            lambda: (lock.waiting() - {first_backend}) and worker.pool() != [first_child],
            20,
            "the task to run again in a new pool process",
        )
        assert Move.objects.filter(match_id=match_id).count() == 0
    finally:
        lock.release()
    wait_until(lambda: Move.objects.filter(match_id=match_id).exists(), 20, "the bot's move")
    # a duplicate delivery now would change nothing either
    _send(producer, "bot_moves_task", match_id, 1)
    wait_until(lambda: worker.log.read_bytes().count(b"succeeded") >= 2, 20, "the duplicate")
    moves = list(Move.objects.filter(match_id=match_id).values_list("step", "seat", "source"))
    assert moves == [(1, 1, "bot")]
    assert MatchEvent.objects.filter(match_id=match_id, type="move_submitted").count() == 1
    assert b"WorkerLostError" in worker.log.read_bytes()  # what the worker saw, and survived
    assert worker.process.poll() is None
    # the match plays on: alice's move resolves the step the bot moved in
    assert alice.move(match_id, 1, {"card": 5}).status_code == 202
    assert Match.objects.get(pk=match_id).step == 2


def test_worker_killed_inside_a_deadline_task_the_sweep_of_another_expires_it_once(
    workers: Callable[[str], Worker], producer: Celery, redis: RedisServer
) -> None:
    alice, bob = make_player(), make_player()
    created = alice.create(
        "gops",
        ["me", {"user": bob.name}],
        options={"num_cards": 5},
        time_control={"per_step_seconds": 3600, "on_timeout": "auto_move"},
    ).json()
    match_id = created["id"]
    assert bob.post(f"/matches/{match_id}/join").status_code == 200
    assert alice.move(match_id, 1, {"card": 3}).status_code == 202
    overdue(match_id, by=timedelta(seconds=1))

    first = workers("first")
    lock = RowLock(match_id)
    try:
        _send(producer, "step_expire_task", match_id, 1)
        wait_until(lambda: len(lock.waiting()) == 1, 20, "the task to wait for the match lock")
        first.kill_all()  # main process and pool, mid-task
    finally:
        lock.release()
    broker = redis_client.Redis.from_url(redis.url)
    # acks_late: the message was never acknowledged, it waits in Redis for redelivery
    assert broker.hlen("unacked") == 1
    assert Move.objects.filter(match_id=match_id, step=1).count() == 1

    second = workers("second")
    _send(producer, "overdue_sweep_task")  # what beat sends every few seconds
    wait_until(lambda: Match.objects.get(pk=match_id).step == 2, 20, "the sweep to expire")
    # the killed worker's task, delivered late, changes nothing
    _send(producer, "step_expire_task", match_id, 1)
    wait_until(lambda: second.log.read_bytes().count(b"succeeded") >= 2, 20, "the late task")
    sources = dict(Move.objects.filter(match_id=match_id, step=1).values_list("seat", "source"))
    assert sources == {0: "player", 1: "timeout"}
    assert MatchEvent.objects.filter(match_id=match_id, type="timeout").count() == 1
    assert MatchEvent.objects.filter(match_id=match_id, type="step_resolved").count() == 1
