"""Real services the fault and several-machines tests start for themselves, on free ports, and
stop again: a PostgreSQL cluster (initdb + pg_ctl in a temporary directory), a Redis, the web
server (config/web.py, or gunicorn),
Celery workers and beat (each in its own process group, so a test can kill one whole "machine"),
and a small HTTP client.

Nothing here touches the shared PostgreSQL (5432) or Redis (6379): a test that needs a service
to fail starts its own and makes only that one fail.
"""

from __future__ import annotations

import contextlib
import glob
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(predicate: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        pytest.skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin)")
    return Path(found[-1]).parent


@dataclass
class PostgresCluster:
    """A throw-away cluster: ``start()``, ``stop()``, ``restart()``, ``destroy()``."""

    port: int = field(default_factory=free_port)
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="facedown-pg-")))
    #: Flush to disk on commit, as in production (a benchmark's ceiling); off for the tests.
    fsync: bool = False

    def __post_init__(self) -> None:
        self.bin = _pg_bin()
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        # initdb refuses to run as root: the cluster belongs to the postgres user then.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.root, "postgres")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/facedown"

    def _run(self, *args: str, timeout: float = 60) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=timeout)

    def init(self) -> None:
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
            "--no-sync", "-E", "UTF8", "--no-instructions",
        )  # fmt: skip
        self.start()
        self.sql("CREATE DATABASE facedown", database="postgres")

    def migrate(self) -> None:
        """The current migrations' schema in ``facedown``, copied from the migrated template of
        the shared server (bench/database.py: migrated once for each state of the migrations):
        a second or two, where a ``migrate`` of its own takes ten or more."""
        from bench.database import copy_migrated

        copy_migrated(self.url)

    def standby(self, replica: PostgresCluster | None = None) -> PostgresCluster:
        """A streaming replica of this (running) cluster, on its own port and directory (of
        ``replica``, a new cluster not initialised, when given), started: ``pg_basebackup -R``
        copies the data and writes the connection to follow."""
        replica = replica or PostgresCluster()
        self._run(
            str(self.bin / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(self.port),
            "-U", "postgres", "-D", str(replica.data), "-R", "-X", "stream", "--no-sync",
            "--checkpoint=fast",
        )  # fmt: skip
        replica.start()
        return replica

    @property
    def options(self) -> str:
        """The server's command-line options: also those of a cluster restored from a backup."""
        # Durability stays as in production (a committed move survives a fast restart); only
        # the flush to disk is skipped, which matters for a machine crash, not for this test.
        return (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            f"-c fsync={'on' if self.fsync else 'off'} -c max_connections=40"
        )

    def pg_ctl(self, action: str, *extra: str) -> None:
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o",
            self.options, "-w", "-t", "30", action, *extra,
        )  # fmt: skip

    def start(self) -> None:
        self.pg_ctl("start")

    def stop(self) -> None:
        self.pg_ctl("stop", "-m", "fast")

    def restart(self) -> None:
        self.pg_ctl("restart", "-m", "fast")

    def sql(self, statement: str, *, database: str = "facedown") -> list[tuple[Any, ...]]:
        import psycopg

        dsn = f"host=127.0.0.1 port={self.port} user=postgres dbname={database}"
        with psycopg.connect(dsn, autocommit=True) as conn, conn.cursor() as cursor:
            cursor.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.pg_ctl("stop", "-m", "immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class RedisServer:
    """A throw-away Redis without persistence."""

    port: int = field(default_factory=free_port)

    def __post_init__(self) -> None:
        if shutil.which("redis-server") is None:
            pytest.skip("no redis-server binary")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_until(self._answers, 10, "redis-server")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any
    raw: bytes

    @property
    def code(self) -> str | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


def http_call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    form: str | None = None,
) -> Answer:
    """One request on a fresh connection (so a request never waits on a dead keep-alive)."""
    sent = dict(headers or {})
    payload: bytes | None = None
    if token:
        sent["Authorization"] = f"Token {token}"
    if body is not None:
        payload = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    if form is not None:
        payload = form.encode()
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=payload, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        received = {name.lower(): value for name, value in response.getheaders()}
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                received.setdefault("set-cookie-all", "")
                received["set-cookie-all"] += value + "\n"
    finally:
        connection.close()
    parsed: Any = None
    if "json" in received.get("content-type", "") and raw:
        parsed = json.loads(raw)
    return Answer(response.status, received, parsed, raw)


# Settings a test's own services must not inherit from the test process.
_PRIVATE_PREFIXES = ("DJANGO_", "FACEDOWN_", "DB_", "GUNICORN_", "PYTEST", "CELERY_")


def service_env(**settings: str) -> dict[str, str]:
    """The environment of a service this test starts: the test's own settings left out, the
    repository on ``PYTHONPATH`` (the service may run in another directory), then ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_PRIVATE_PREFIXES)}
    env["PYTHONPATH"] = str(ROOT)
    env.update(settings)
    return env


class Service:
    """A process in its own session: ``kill()`` takes it and all its children at once (SIGKILL,
    as when a machine dies), ``stop()`` asks politely first."""

    def __init__(self, command: list[str], *, env: dict[str, str], cwd: Path, log: Path) -> None:
        self.log = log
        self.process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def children(self) -> list[int]:
        pid = self.process.pid
        with contextlib.suppress(OSError):
            return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        return []

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def terminate(self) -> None:
        """Ask the main process to shut down (it stops its own workers or pool), without
        waiting: several services then stop side by side."""
        if self.process.poll() is None:
            self.process.terminate()

    def stop(self, grace: float = 15) -> None:
        if self.process.poll() is None:
            self.terminate()
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.kill()


class CeleryWorker(Service):
    """``celery worker`` (prefork pool) under ``name``; ``ready()`` waits for its banner."""

    def __init__(
        self, *, env: dict[str, str], cwd: Path, log: Path, name: str, concurrency: int = 1
    ) -> None:
        super().__init__(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork",
             "--concurrency", str(concurrency), "--without-gossip", "--without-mingle",
             "--without-heartbeat", "-l", "info", "-n", f"{name}-{os.getpid()}@%h"],
            env=env, cwd=cwd, log=log,
        )  # fmt: skip

    def ready(self, timeout: float = 60) -> None:
        wait_until(lambda: b"ready." in self.log.read_bytes() or not self.alive, timeout, "worker")
        assert self.alive, self.output()

    def pool(self) -> list[int]:
        return self.children()


class CeleryBeat(Service):
    """``celery beat`` with its schedule file in ``cwd``."""

    def __init__(self, *, env: dict[str, str], cwd: Path, log: Path) -> None:
        super().__init__(
            [sys.executable, "-m", "celery", "-A", "config", "beat", "-l", "info",
             "-s", str(cwd / "celerybeat-schedule")],
            env=env, cwd=cwd, log=log,
        )  # fmt: skip


class WebServer(Service):
    """The production web server, ``python -m config.web`` (granian), on a free port of
    127.0.0.1."""

    name = "the web server"

    def __init__(
        self, *, env: dict[str, str], cwd: Path, log: Path, workers: int = 1, threads: int = 2
    ) -> None:
        self.port = free_port()
        super().__init__(
            [sys.executable, "-m", "config.web"],
            env={**env, "WEB_BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": str(workers),
                 "WEB_THREADS": str(threads)},
            cwd=cwd, log=log,
        )  # fmt: skip
        self.workers = workers

    def terminate(self) -> None:
        """SIGINT, as for gunicorn below (for granian the same graceful stop as SIGTERM: the
        workers stop once their requests in flight are answered)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)

    def answers(self) -> bool:
        try:
            return http_call(self.port, "GET", "/api/v1/games").status == 200
        except OSError:
            return False

    def ready(self, timeout: float = 60) -> None:
        """It answers once one worker is up; wait for all of them (a loaded machine is slow)."""
        wait_until(lambda: self.answers() or not self.alive, timeout, self.name)
        assert self.alive, self.output()
        wait_until(lambda: len(self.children()) == self.workers, timeout, f"{self.name}'s workers")


class Gunicorn(WebServer):
    """``gunicorn -c config/gunicorn.conf.py config.wsgi`` on a free port of 127.0.0.1 (the
    supported alternative to config/web.py)."""

    name = "gunicorn"

    def __init__(
        self, *, env: dict[str, str], cwd: Path, log: Path, workers: int = 1, threads: int = 2
    ) -> None:
        self.port = free_port()
        Service.__init__(
            self,
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "config" / "gunicorn.conf.py"),
             "config.wsgi", "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--threads", str(threads)],
            env=env, cwd=cwd, log=log,
        )  # fmt: skip
        self.workers = workers
