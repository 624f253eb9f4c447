"""Fault injection with real services the tests own: a ``redis-server`` started on a free port
(stopped and started again by the test, never the shared one), a real Celery worker process
against it and the test database, and an audit of every move against an engine replay."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from kombu import pools as kombu_pools

from cardgames.engines.rng import DealRng
from config.celery import app
from games.catalog import get_engine
from games.models import Match, Move
from games.services.audit import audit_transcript
from games.verify import verify_transcript

REPO = Path(__file__).resolve().parents[2]
REDIS_SERVER = "redis-server"
NO_PERSISTENCE = ("--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
WORKER_COMMAND = [
    *(sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo"),
    *("--loglevel=info", "--without-gossip", "--without-mingle", "--without-heartbeat"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(
    predicate: Callable[[], Any], timeout: float, what: str, log: Callable[[], str] | None = None
) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}" + (f"\n{log()}" if log else ""))


@dataclass
class OwnRedis:
    """A redis-server of this test only: no persistence, like a cache restarted empty."""

    port: int
    directory: str
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def start(self) -> None:
        assert self.process is None
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), *NO_PERSISTENCE, "--dir", self.directory],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self._answers, 5, "redis-server to start")

    def stop(self) -> None:
        """Kill this test's redis-server (by its own pid) and wait until it is gone."""
        if self.process is None:
            return
        self.process.kill()
        self.process.wait(5)
        self.process = None
        wait_for(lambda: not self._answers(), 5, "redis-server to stop")


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    with tempfile.TemporaryDirectory(prefix="facedown-redis-") as directory:
        redis = OwnRedis(port=free_port(), directory=directory)
        redis.start()
        try:
            yield redis
        finally:
            redis.stop()


def _producers_reset() -> None:
    kombu_pools.reset()  # every cached broker connection and producer, opened anew on use
    app._pool = None
    app.amqp._producer_pool = None


@contextmanager
def broker_at(url: str) -> Iterator[None]:
    """Publish this process's Celery jobs to ``url`` for the block."""
    key = "CELERY_BROKER_URL"  # the namespaced key Celery looks up first
    old = app.conf.broker_url
    # Celery reads the variable of that name before its configuration: set, it would win.
    variable = os.environ.get(key)
    _producers_reset()
    app.conf[key] = url
    if variable is not None:
        os.environ[key] = url
    try:
        yield
    finally:
        _producers_reset()
        app.conf[key] = old
        if variable is not None:
            os.environ[key] = variable


@pytest.fixture
def celery_to(settings: Any) -> Callable[[str], Any]:
    """``with celery_to(url):`` the follow-up jobs of requests go to the broker at ``url``."""
    settings.FACEDOWN_TASK_RUNNER = "celery"
    return broker_at


@dataclass
class WorkerProcess:
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


@pytest.fixture
def start_worker_process(tmp_path: Path) -> Iterator[Callable[[OwnRedis], WorkerProcess]]:
    """A real ``celery worker --pool=solo`` process on the given Redis and the test database;
    it sweeps every second. Stopped (by its pid) at the end of the test."""
    started: list[WorkerProcess] = []

    def start(redis: OwnRedis) -> WorkerProcess:
        db = connection.settings_dict
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.test_settings",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "REDIS_URL": redis.url,
            "CELERY_BROKER_URL": redis.url,  # not the broker this run was given
            "FACEDOWN_SWEEP_SECONDS": "1",
            "DB_CONN_MAX_AGE": "0",
        }
        log = tmp_path / f"worker-{len(started)}.log"
        process = subprocess.Popen(
            WORKER_COMMAND,
            cwd=REPO,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        worker = WorkerProcess(process, log)
        started.append(worker)
        wait_for(lambda: "ready." in worker.output() or not worker.alive, 30, "worker ready")
        assert worker.alive, worker.output()
        return worker

    yield start
    for worker in started:
        if worker.alive:
            worker.process.terminate()
            try:
                worker.process.wait(10)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait(5)


def audit(accepted: list[tuple[str, int, int]]) -> list[str]:
    """Problems found (empty: OK) between the moves clients were told were accepted (202) and
    what is stored: no move lost, none doubled, every match's state equal to an engine replay
    of its moves, and every finished match's transcript verified end to end."""
    problems: list[str] = []
    if len(set(accepted)) != len(accepted):
        problems.append("a client was told twice that the same move was accepted")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT match_id, step, seat FROM games_move GROUP BY match_id, step, seat"
            " HAVING count(*) > 1"
        )
        problems += [f"duplicate move rows {row}" for row in cursor.fetchall()]
    players = {
        (str(m), step, seat)
        for m, step, seat in Move.objects.filter(source=Move.Source.PLAYER).values_list(
            "match_id", "step", "seat"
        )
    }
    problems += [f"lost: accepted {key}, no row" for key in set(accepted) - players]
    problems += [f"a player row no client was told of: {key}" for key in players - set(accepted)]
    for match in Match.objects.exclude(status=Match.Status.OPEN).prefetch_related("seats"):
        engine = get_engine(match.game)
        assert engine is not None
        seats = sorted(match.seats.all(), key=lambda seat: seat.index)
        moves: dict[int, dict[int, Any]] = {}
        for step, seat, payload in Move.objects.filter(match=match).values_list(
            "step", "seat", "payload"
        ):
            moves.setdefault(step, {})[seat] = payload
        rng = DealRng(bytes.fromhex(match.seed), str(match.id), [s.client_seed for s in seats])
        state = engine.initial_state(len(seats), match.options, rng)
        for step in range(1, match.step):
            state = engine.apply(state, moves[step]).state
        if state != match.state:
            problems.append(f"{match.id}: the stored state differs from the replay")
        if match.is_over:
            report = verify_transcript(audit_transcript(match_id=match.id))
            problems += [f"{match.id}: {problem}" for problem in report.problems]
    return problems


__all__ = ["OwnRedis", "WorkerProcess", "audit", "broker_at", "settings", "wait_for"]
