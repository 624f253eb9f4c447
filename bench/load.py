"""Load benchmark: real clients playing sealed-move matches over HTTP against the production stack.

    .venv/bin/python bench/load.py --pairs 16 --duration 30            # closed loop, 32 players
    .venv/bin/python bench/load.py --pairs 16 --duration 30 --poll     # + one ETag poll per move
    .venv/bin/python bench/load.py --pairs 16 --duration 30 --rate 300 # open loop, 300 moves/s
    .venv/bin/python bench/load.py --pairs 8 --duration 20 --rate-share 0.6 # capacity, then 60%
    .venv/bin/python bench/load.py --pairs 12 --hols 2 ...             # + 5-player Hols der Geier

What one run does (docs/benchmarks.md keeps the results):

1. Drops and creates the PostgreSQL database ``facedown_load`` (``--db``), migrated (a copy of
   bench/database.py's template), and flushes Redis db 13 (``--redis-db``).
2. Starts the production configuration: the web server of ``config/web.py`` (granian;
   ``--server gunicorn`` for ``config/gunicorn.conf.py`` with ``--worker-class``; ``--workers``,
   ``--threads`` for both) and a Celery worker (``--pool=solo``), with
   ``DATABASE_URL``, ``REDIS_URL``, ``DB_CONN_MAX_AGE=600``, ``FACEDOWN_TOKEN_CACHE_SECONDS=30``,
   ``DJANGO_DEBUG=0``. The throttle *limits* are raised (``FACEDOWN_THROTTLE_*``) so that a few
   dozen simulated players can stand in for many real ones; the throttle checks still run.
3. Registers the players over HTTP (``POST /accounts/register``; PBKDF2, not timed).
4. Plays: every group (a 2-player GOPS pair, or a 5-player Hols der Geier table) creates a match
   by invitation, the guests join with a client seed, every seat reads the match once (its
   hand and legal moves), then all seats post their sealed moves for each step concurrently
   (``POST /moves`` with the step), step after step, until the match is over (the last card is
   forced: the server plays it), then the next match. Each client knows its legal moves from
   that first read and its own hand; ``--poll`` adds one ``GET /matches/{id}`` with
   ``If-None-Match`` per move per client. Closed loop by default (each client sends its next
   request when the previous one answered); ``--rate R`` is an open loop: moves are sent on a
   fixed schedule of R per second and latency is measured from the scheduled send time, so a
   slow server cannot hide behind a slow generator (coordinated omission). ``--rate-share F``
   first measures the capacity with a closed loop run (same settings, its own fresh database and
   stack), then runs the open loop at F times it; both are printed. ``--uvloop`` runs the
   generator on uvloop (less of the shared CPU, fewer late sends). ``--trace`` splits every
   move's time into before, inside and after the web process's Python (``bench/tail.py``).
   Only the measurement window (after ``--warmup``) counts.
5. Reads: ``--read-seconds`` of ``GET /matches/{id}`` by every client, first without and then
   with ``If-None-Match`` (throughput of full reads and of 304s).
6. Queries per request: a short in-process pass through the whole Django stack (test client)
   counting SQL statements (``CaptureQueriesContext``) and real round trips (libpq trace, BEGIN
   and COMMIT included: ``tests/roundtrips.py``).
7. Audit: every 202 the clients got is exactly one player Move row (with the same receipt
   digest) and every player Move row was a 202; (match, step, seat) is unique; every match is
   replayed through the engine from its seed and client seeds and must reach its stored state,
   scores and result.
8. Baseline: ``pgbench`` with a one-row UPDATE script, as many clients as players, on database
   ``facedown_load_pgbench`` (``--db`` + ``_pgbench``); prints its TPS and moves/s ÷ TPS.

Errors: any answer other than the expected one (201 create, 200 join, 202 move, 200/304 read) and
any transport error; there are no expected exceptions. ``--profile DIR`` records every web worker
with py-spy during the window (needs ``pip install py-spy``; see bench/profile_summary.py).
``--json FILE`` writes every figure. Exit status 1 on errors or a failed audit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.client import Connection  # noqa: E402
from bench.database import fresh_database  # noqa: E402
from bench.tail import Sent, access_spans, decompose, percentile  # noqa: E402

API = "/api/v1"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
TICK = os.sysconf("SC_CLK_TCK")
PASSWORD = "load-bench-password-1"

# --- processes and their CPU ---------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, float, float] | None:
    """(comm, ppid, own CPU s, reaped children's CPU s) of a process, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("latin-1")
    except OSError:
        return None
    comm = raw[raw.index("(") + 1 : raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2 :].split()
    # fields[0] is state (field 3); utime is field 14 → index 11.
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return comm, int(fields[1]), (utime + stime) / TICK, (cutime + cstime) / TICK


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _children(parent: int) -> list[int]:
    found = []
    for pid in _pids():
        st = _stat(pid)
        if st is not None and st[1] == parent:
            found.append(pid)
    return found


def _tree_cpu(root: int) -> float:
    """CPU seconds of a process, its live children and its reaped children."""
    st = _stat(root)
    if st is None:
        return 0.0
    total = st[2] + st[3]
    for child in _children(root):
        cst = _stat(child)
        if cst is not None:
            total += cst[2] + cst[3]
    return total


def _postgres_cpu() -> dict[int, float]:
    """Every postgres process's CPU (own + reaped children): the postmaster's reaped-children
    time keeps exited backends counted."""
    found = {}
    for pid in _pids():
        st = _stat(pid)
        if st is not None and st[0] == "postgres":
            found[pid] = st[2] + st[3]
    return found


def _backend_database(pid: int) -> str | None:
    """The database a PostgreSQL backend serves, from its title
    (``postgres: [cluster: ]user database host(port) activity``), or None."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            title = f.read().decode("latin-1").replace("\0", " ")
    except OSError:
        return None
    words = title.split(": ")[-1].split()
    return words[1] if len(words) >= 3 and "(" in words[2] else None


def _database_backends(database: str, pids: dict[int, float]) -> dict[int, float]:
    """The CPU of the postgres processes that serve ``database`` (persistent connections: the
    backends live through the window), the fair counterpart of a peer's own backends on a
    machine where other databases are busy too."""
    return {pid: cpu for pid, cpu in pids.items() if _backend_database(pid) == database}


def _machine_busy() -> float:
    """CPU seconds the whole machine spent busy (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]  # idle + iowait
    return (sum(parts[:8]) - idle) / TICK


def _own_cpu(pid: int) -> float:
    st = _stat(pid)
    return st[2] if st is not None else 0.0


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _memory(pid: int) -> dict[str, float]:
    """RSS and PSS (MB) of one process."""
    out = {"rss_mb": 0.0, "pss_mb": 0.0}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    out["rss_mb"] = int(line.split()[1]) / 1024
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    out["pss_mb"] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return out


@dataclass
class CpuSnapshot:
    at: float
    server: float
    celery: float
    postgres: dict[int, float]
    generator: float
    #: the backends of the benchmark's own database (a subset of ``postgres``).
    postgres_db: dict[int, float]
    machine: float
    #: each web worker's own CPU seconds: how evenly the connections spread over them.
    workers: dict[int, float] = field(default_factory=dict)


# --- the stack -----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: ``--worker-class``: the production default (gthread accepting only with a thread free,
#: config/gunicorn_worker.py), gunicorn's own gthread, and sync.
WORKER_CLASSES = {
    "balanced": "config.gunicorn_worker.BalancedThreadWorker",
    "gthread": "gthread",
    "sync": "sync",
}


def production_env(db: str, redis_db: int) -> dict[str, str]:
    """The environment of a production-configured stack on its own database and Redis db, with
    throttles raised out of the way (bench/load.py's servers, bench/hotpaths.py in-process)."""
    return {
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{db}",
        "REDIS_URL": f"redis://127.0.0.1:6379/{redis_db}",
        "DB_CONN_MAX_AGE": "600",
        "FACEDOWN_TOKEN_CACHE_SECONDS": "30",
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "FACEDOWN_SIGNING_KEY": secrets.token_hex(32),
        "DJANGO_SECRET_KEY": secrets.token_hex(32),
        # testserver: the in-process test client of the round-trip sample.
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        **{
            f"FACEDOWN_THROTTLE_{scope}": "1000000/min"
            for scope in ("USER", "ANON", "MOVES", "READS")
        },
        **{
            f"FACEDOWN_THROTTLE_{scope}": "1000000/hour"
            for scope in ("REGISTER", "LOGIN", "MATCH_CREATE")
        },
        # The benchmark's players invite one another far more often than a person would.
        "FACEDOWN_INVITATIONS_PER_HOUR": "1000000",
        "FACEDOWN_PROPOSALS_PER_HOUR": "1000000",
        "LOG_LEVEL": "WARNING",
        # As the compose file logs: one JSON line per request (the access log).
        "LOG_FORMAT": "json",
    }


class Stack:
    """The web server (production config) + a Celery worker, on a fresh database."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.port = args.port or _free_port()
        self.env = dict(os.environ)
        self.env.update(
            production_env(args.db, args.redis_db),
            FACEDOWN_VAR_DIR=tempfile.mkdtemp(prefix="facedown-load-"),
            WEB_BIND=f"127.0.0.1:{self.port}",
            GUNICORN_BIND=f"127.0.0.1:{self.port}",
            WEB_THREADS=str(args.threads),
            WEB_CONCURRENCY=str(args.workers),
            GUNICORN_WORKER_CLASS=WORKER_CLASSES[args.worker_class],
            GUNICORN_THREADS=str(args.threads),
        )
        self.web: subprocess.Popen[bytes] | None = None
        self.celery: subprocess.Popen[bytes] | None = None
        #: --trace: the web server's log (stderr: its access log), kept past stop() to be read.
        self.web_log = Path(self.env["FACEDOWN_VAR_DIR"] + ".web.log")
        self._web_log_file = self.web_log.open("wb") if args.trace else None

    def prepare_database(self) -> None:
        fresh_database(self.args.db)  # migrated: a copy of the template (bench/database.py)
        os.environ.update(self.env)
        import django

        django.setup()
        import redis

        redis.Redis.from_url(self.env["REDIS_URL"]).flushdb()

    def start(self) -> None:
        py = sys.executable
        command = [py, "-m", "config.web"]
        if self.args.server == "gunicorn":
            command = [
                py,
                "-m",
                "gunicorn",
                "-c",
                str(ROOT / "config/gunicorn.conf.py"),
                "config.wsgi",
            ]
        self.web = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stderr=self._web_log_file,
        )
        self.celery = subprocess.Popen(
            [
                py,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "--loglevel=warning",
                "--without-heartbeat",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.web.poll() is not None:
                raise RuntimeError("the web server exited")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(
                        b"GET /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Connection: close\r\n\r\n"
                    )
                    if s.recv(64).startswith(b"HTTP/1.1 200"):
                        break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("the web server did not answer")
        from config.celery import app

        for _ in range(120):
            if self.celery.poll() is not None:
                raise RuntimeError("the celery worker exited")
            if app.control.ping(timeout=0.5):
                break
        else:
            raise RuntimeError("the celery worker did not answer")
        # Every worker must be up before the window starts.
        while len(self.workers()) < self.args.workers:
            time.sleep(0.05)

    def workers(self) -> list[int]:
        assert self.web is not None
        return sorted(_children(self.web.pid))

    def snapshot(self) -> CpuSnapshot:
        assert self.web is not None and self.celery is not None
        postgres = _postgres_cpu()
        return CpuSnapshot(
            at=time.monotonic(),
            server=_tree_cpu(self.web.pid),
            celery=_tree_cpu(self.celery.pid),
            postgres=postgres,
            generator=_self_cpu(),
            machine=_machine_busy(),
            postgres_db=_database_backends(self.args.db, postgres),
            workers={pid: _own_cpu(pid) for pid in self.workers()},
        )

    def stop(self) -> None:
        for proc in (self.web, self.celery):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in (self.web, self.celery):
            if proc is not None:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        if self._web_log_file is not None:
            self._web_log_file.close()
        shutil.rmtree(self.env["FACEDOWN_VAR_DIR"], ignore_errors=True)


# --- recording -----------------------------------------------------------------------------------


@dataclass
class Recorder:
    window: tuple[float, float] = (0.0, 0.0)
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    counts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    error_examples: list[str] = field(default_factory=list)
    requests_total: int = 0
    #: (match id, step, seat, receipt digest) of every 202 a client got.
    accepted: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: When each of ``accepted`` was answered (monotonic, same order): the restore drill's
    #: acknowledged-before-the-restore-point set.
    accepted_at: list[float] = field(default_factory=list)
    dispatch_lag: list[float] = field(default_factory=list)
    #: Open loop: the same requests timed from their actual send, without the generator's
    #: backlog (a send later than its schedule): the server's and the network's part.
    from_send: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def record(self, name: str, started: float, done: float, sent: float | None = None) -> None:
        self.requests_total += 1
        # Counted when it completes inside the window (an open loop's backlog included).
        if self.window[0] <= done <= self.window[1]:
            self.latency[name].append(done - started)
            self.counts[name] += 1
            if sent is not None:
                self.from_send[name].append(done - sent)

    def error(self, name: str, detail: str) -> None:
        self.errors[name] += 1
        if len(self.error_examples) < 10:
            self.error_examples.append(f"{name}: {detail[:300]}")


@dataclass
class Player:
    name: str
    token: str
    conn: Connection
    etags: dict[str, str] = field(default_factory=dict)
    last_match: str | None = None


class Load:
    def __init__(self, args: argparse.Namespace, port: int) -> None:
        self.args = args
        self.port = port
        self.rec = Recorder()
        self.rng = random.Random(args.seed)
        self.stop_at = float("inf")
        self.pacer_next = 0.0
        self.matches: list[str] = []
        #: --trace: every move answered in the window, with wall-clock times and request id.
        self.sent: list[Sent] = []

    # one request, timed and checked
    async def call(
        self,
        player: Player,
        name: str,
        method: str,
        path: str,
        body: Any = None,
        expect: tuple[int, ...] = (200,),
        headers: dict[str, str] | None = None,
        scheduled: float | None = None,
    ) -> Any:
        started = time.monotonic()
        wall_sent = time.time() if self.args.trace else 0.0
        try:
            answer = await player.conn.request(method, API + path, body, headers)
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self.rec.error(name, f"{type(exc).__name__}: {exc}")
            player.conn.close()
            return None
        done = time.monotonic()
        if (
            self.args.trace
            and name == "POST moves"
            and self.rec.window[0] <= done <= self.rec.window[1]
        ):
            request_id = answer.headers.get("x-request-id", "")
            self.sent.append(Sent(request_id, wall_sent, time.time()))
        if answer.status not in expect:
            self.rec.error(f"{name} {answer.status}", answer.body.decode(errors="replace"))
            return None
        label = name if len(expect) == 1 else f"{name} {answer.status}"
        if scheduled is None:
            self.rec.record(label, started, done)
        else:
            self.rec.record(label, scheduled, done, sent=started)
        return answer

    def users_via_db(self, count: int) -> list[Player]:
        """``--users-via-db``: accounts and tokens written straight to the database, without
        PBKDF2 (unusable passwords): saves ~0.3 CPU-s per player before the run."""
        from accounts.models import User
        from accounts.tokens import tokens_bulk_issue

        run = uuid.uuid4().hex[:6]
        users = User.objects.bulk_create(
            [User(username=f"load-{run}-{i}", password="!") for i in range(count)]
        )
        tokens = tokens_bulk_issue(users, name="bench")
        return [
            Player(u.username, t, Connection("127.0.0.1", self.port, t))
            for u, t in zip(users, tokens, strict=True)
        ]

    async def register(self, count: int) -> list[Player]:
        gate = asyncio.Semaphore(max(2, self.args.workers * self.args.threads))
        run = uuid.uuid4().hex[:6]

        async def one(i: int) -> Player:
            name = f"load-{run}-{i}"
            player = Player(name, "", Connection("127.0.0.1", self.port))
            async with gate:
                answer = await self.call(
                    player,
                    "POST register",
                    "POST",
                    "/accounts/register",
                    {"username": name, "password": PASSWORD},
                    expect=(201,),
                )
            if answer is None:
                raise RuntimeError(f"registration failed: {self.rec.error_examples}")
            player.token = player.conn.token = answer.json()["token"]
            return player

        return list(await asyncio.gather(*(one(i) for i in range(count))))

    async def slot(self) -> float | None:
        """Open loop: the next scheduled send time (waiting for it), or None past the end."""
        at = self.pacer_next
        self.pacer_next += 1.0 / self.args.rate
        if at >= self.stop_at:
            return None
        delay = at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        if at >= self.rec.window[0]:  # the warm-up's (a cold server's) backlog not counted
            self.rec.dispatch_lag.append(time.monotonic() - at)
        return at

    async def group(self, players: list[Player], game: str, options: dict[str, Any]) -> None:
        host, *guests = players
        while time.monotonic() < self.stop_at:
            created = await self.call(
                host,
                "POST create",
                "POST",
                "/matches",
                {
                    "game": game,
                    "options": options,
                    "seats": ["me", *({"user": g.name} for g in guests)],
                },
                expect=(201,),
            )
            if created is None:
                return
            match_id = created.json()["id"]
            self.matches.append(match_id)
            join = [
                self.call(
                    g,
                    "POST join",
                    "POST",
                    f"/matches/{match_id}/join",
                    {"client_seed": secrets.token_urlsafe(12)},
                )
                for g in guests
            ]
            if self.args.concurrent_joins:
                joins = await asyncio.gather(*join)
            else:  # one after the other: see --concurrent-joins
                joins = [await j for j in join]
            if any(j is None for j in joins):
                return
            reads = await asyncio.gather(*(self.read(p, match_id) for p in players))
            if any(r is None for r in reads):
                return
            if any(r.get("status") != "active" or not r.get("view") for r in reads):
                self.rec.error("GET match", f"not active after every join: {reads[0]}")
                return
            seats: list[tuple[Player, int, list[int]]] = []
            for player, view in zip(players, reads, strict=True):
                legal = {m["card"] for m in view["legal_moves"]}
                held = set(view["view"]["hand"])
                seats.append((player, view["you"], sorted(legal & held)))
            step = reads[0]["step"]
            while all(len(hand) > 1 for _, _, hand in seats):  # the last card is forced
                if time.monotonic() >= self.stop_at:
                    return
                cards = [self.rng.choice(hand) for _, _, hand in seats]
                moved = await asyncio.gather(
                    *(
                        self.move(player, match_id, step, seat, card)
                        for (player, seat, _), card in zip(seats, cards, strict=True)
                    )
                )
                if not all(moved):
                    return
                for (_, _, hand), card in zip(seats, cards, strict=True):
                    hand.remove(card)
                step += 1

    async def read(self, player: Player, match_id: str) -> Any:
        answer = await self.call(
            player, "GET match", "GET", f"/matches/{match_id}", expect=(200, 304)
        )
        if answer is None:
            return None
        player.etags[match_id] = answer.headers.get("etag", "")
        player.last_match = match_id
        return answer.json()

    async def poll(self, player: Player, match_id: str) -> bool:
        answer = await self.call(
            player,
            "GET match",
            "GET",
            f"/matches/{match_id}",
            expect=(200, 304),
            headers={"If-None-Match": player.etags.get(match_id, '""')},
        )
        if answer is None:
            return False
        player.etags[match_id] = answer.headers.get("etag", "")
        return True

    async def move(self, player: Player, match_id: str, step: int, seat: int, card: int) -> bool:
        scheduled = None
        if self.args.rate:
            scheduled = await self.slot()
            if scheduled is None:
                return False
        headers = {"Idempotency-Key": uuid.uuid4().hex} if self.args.idempotency_keys else None
        answer = await self.call(
            player,
            "POST moves",
            "POST",
            f"/matches/{match_id}/moves",
            {"step": step, "move": {"card": card}},
            expect=(202,),
            headers=headers,
            scheduled=scheduled,
        )
        if answer is None:
            return False
        receipt = answer.json()["receipt"]
        self.rec.accepted.append((match_id, step, seat, receipt["digest"]))
        self.rec.accepted_at.append(time.monotonic())
        if self.args.poll:
            return await self.poll(player, match_id)
        return True

    async def reads(self, players: list[Player], seconds: float, conditional: bool) -> None:
        async def loop(player: Player) -> None:
            match_id = player.last_match
            if match_id is None:
                return
            while time.monotonic() < self.stop_at:
                headers = {"If-None-Match": player.etags[match_id]} if conditional else None
                answer = await self.call(
                    player,
                    "GET match",
                    "GET",
                    f"/matches/{match_id}",
                    expect=(200, 304),
                    headers=headers,
                )
                if answer is None:
                    return
                player.etags[match_id] = answer.headers.get("etag", "")

        now = time.monotonic()
        self.stop_at = now + seconds
        self.rec.window = (now, self.stop_at)
        await asyncio.gather(*(loop(p) for p in players))


async def _play(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    load = Load(args, stack.port)
    groups = [("gops", 2, {"num_cards": args.gops_cards})] * args.pairs
    groups += [("hols-der-geier", 5, {})] * args.hols
    players_needed = sum(size for _, size, _ in groups)
    t0 = time.monotonic()
    if args.users_via_db:
        players = await asyncio.to_thread(load.users_via_db, players_needed)
    else:
        players = await load.register(players_needed)
    registered = time.monotonic() - t0
    load.rec.latency.clear()
    load.rec.counts.clear()

    profilers: list[subprocess.Popen[bytes]] = []
    start = time.monotonic()
    window = (start + args.warmup, start + args.warmup + args.duration)
    load.rec.window = window
    load.stop_at = window[1]
    load.pacer_next = start
    tasks = []
    offset = 0
    for game, size, options in groups:
        tasks.append(
            asyncio.ensure_future(load.group(players[offset : offset + size], game, options))
        )
        offset += size
    await asyncio.sleep(max(0.0, window[0] - time.monotonic()))
    before = stack.snapshot()
    if args.profile:
        profilers = _start_profilers(args, stack.workers())
    await asyncio.sleep(max(0.0, window[1] - time.monotonic()))
    after = stack.snapshot()
    workers_at_end = stack.workers()
    await asyncio.gather(*tasks)
    for proc in profilers:
        proc.wait()
    play = {
        "rec": load.rec,
        "cpu": (before, after),
        "workers": workers_at_end,
        "registered_s": registered,
        "players": players_needed,
        "window": window,
    }

    read_results: dict[str, Any] = {}
    if args.read_seconds:
        for conditional in (False, True):
            load.rec = Recorder()
            before_r = stack.snapshot()
            await load.reads(players, args.read_seconds / 2, conditional)
            after_r = stack.snapshot()
            read_results["304" if conditional else "200"] = {
                "rec": load.rec,
                "cpu": (before_r, after_r),
            }
    play["reads"] = read_results
    play["memory"] = {pid: _memory(pid) for pid in stack.workers()}
    play["matches"] = load.matches
    play["sent"] = load.sent
    for p in players:
        p.conn.close()
    return play


def _start_profilers(args: argparse.Namespace, workers: list[int]) -> list[subprocess.Popen[bytes]]:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    out = Path(args.profile)
    out.mkdir(parents=True, exist_ok=True)
    procs = []
    for i, pid in enumerate(workers):
        procs.append(
            subprocess.Popen(
                [
                    spy,
                    "record",
                    "--pid",
                    str(pid),
                    "--rate",
                    "100",
                    "--gil",  # samples of Python at work only: a wait for PostgreSQL holds no GIL
                    "--duration",
                    str(int(args.duration)),
                    "--format",
                    "raw",
                    "-o",
                    str(out / f"worker{i}.txt"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    return procs


# --- queries per request (in-process, the whole Django stack) ------------------------------------


def _sample_queries() -> tuple[dict[str, tuple[int, int]], dict[str, list[str]]]:
    """SQL statements and libpq round trips of each request kind, token cache warm."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from accounts.models import User
    from accounts.tokens import token_issue
    from tests.roundtrips import count_round_trips

    clients = []
    for i in range(2):
        user = User.objects.create_user(f"sample-{uuid.uuid4().hex[:8]}-{i}", password=PASSWORD)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user, name='bench')[1]}")
        clients.append((user, client))
    (_, alice), (bob_user, bob) = clients
    out: dict[str, tuple[int, int]] = {}
    trace: dict[str, list[str]] = {}

    def measure(name: str, action: Any, expect: int) -> Any:
        with CaptureQueriesContext(connection) as queries, count_round_trips() as trips:
            answer = action()
        assert answer.status_code == expect, (name, answer.status_code, answer.content)
        out[name] = (len(queries.captured_queries), trips.count)
        trace[name] = [m[:70] for m in trips.messages]
        return answer

    for _, c in clients:  # warm the token cache
        c.get(f"{API}/accounts/me")
    created = measure(
        "POST create",
        lambda: alice.post(
            f"{API}/matches",
            {"game": "gops", "seats": ["me", {"user": bob_user.username}]},
            format="json",
        ),
        201,
    )
    match_id = created.json()["id"]
    measure(
        "POST join",
        lambda: bob.post(f"{API}/matches/{match_id}/join", {"client_seed": "abc"}, format="json"),
        200,
    )
    for c in (alice, bob):
        assert c.get(f"{API}/matches/{match_id}").status_code == 200
    step = 1
    measure(
        "POST moves (step stays open)",
        lambda: alice.post(
            f"{API}/matches/{match_id}/moves", {"step": step, "move": {"card": 1}}, format="json"
        ),
        202,
    )
    measure(
        "POST moves (resolves the step)",
        lambda: bob.post(
            f"{API}/matches/{match_id}/moves", {"step": step, "move": {"card": 2}}, format="json"
        ),
        202,
    )
    full = measure("GET match 200", lambda: alice.get(f"{API}/matches/{match_id}"), 200)
    etag = full["ETag"]
    measure(
        "GET match 304",
        lambda: alice.get(f"{API}/matches/{match_id}", HTTP_IF_NONE_MATCH=etag),
        304,
    )
    return out, trace


# --- audit ---------------------------------------------------------------------------------------


def audit(accepted: list[tuple[str, int, int, str]]) -> tuple[list[str], int, int]:
    """Problems found (empty: OK), matches checked, moves checked."""
    from django.db import connection

    from cardgames.engines.rng import DealRng
    from games.catalog import get_engine
    from games.models import Match, Move

    problems: list[str] = []
    keys = Counter((m, step, seat) for m, step, seat, _ in accepted)
    for key, n in keys.items():
        if n > 1:
            problems.append(f"the clients got {n} 202s for {key}")
    digests = {(m, step, seat): d for m, step, seat, d in accepted}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT match_id, step, seat, count(*) FROM games_move "
            "GROUP BY match_id, step, seat HAVING count(*) > 1"
        )
        for row in cursor.fetchall():
            problems.append(f"duplicate move rows {row}")
    rows = Move.objects.filter(source=Move.Source.PLAYER).values_list(
        "match_id", "step", "seat", "receipt"
    )
    stored = {(str(m), step, seat): receipt for m, step, seat, receipt in rows}
    for key in digests.keys() - stored.keys():
        problems.append(f"lost: the client got a 202 for {key}, no player move row")
    for key in stored.keys() - digests.keys():
        problems.append(f"a player move row no client was told about: {key}")
    for key in digests.keys() & stored.keys():
        if (stored[key] or {}).get("digest") != digests[key]:
            problems.append(f"receipt digest differs for {key}")
    if len(stored) != len(digests):
        problems.append(f"{len(digests)} moves accepted by clients, {len(stored)} player rows")

    moves_by_match: dict[str, dict[int, dict[int, Any]]] = defaultdict(lambda: defaultdict(dict))
    for m, step, seat, payload in Move.objects.values_list("match_id", "step", "seat", "payload"):
        moves_by_match[str(m)][step][seat] = payload
    matches = Match.objects.prefetch_related("seats")
    checked = 0
    for match in matches:
        checked += 1
        mid = str(match.id)
        engine = get_engine(match.game)
        assert engine is not None
        seats = sorted(match.seats.all(), key=lambda s: s.index)
        if match.status == Match.Status.OPEN:
            continue
        rng = DealRng(bytes.fromhex(match.seed), mid, [s.client_seed for s in seats])
        state = engine.initial_state(len(seats), match.options, rng)
        try:
            for step in range(1, match.step):
                state = engine.apply(state, moves_by_match[mid][step]).state
        except Exception as exc:  # reported as a discrepancy
            problems.append(f"{mid}: replay failed at step {step}: {exc!r}")
            continue
        if state != match.state:
            problems.append(f"{mid}: replayed state differs from the stored state")
        if engine.scores(state) != list(match.scores):
            problems.append(f"{mid}: scores {match.scores} != replay {engine.scores(state)}")
        if match.status == Match.Status.FINISHED:
            outcome = engine.outcome(state)
            if outcome is None or match.result is None:
                problems.append(f"{mid}: finished but the replay is not over")
                continue
            expected = {
                "scores": list(outcome.scores),
                "winners": list(outcome.winners),
                "ranking": [list(g) for g in outcome.ranking],
            }
            got = {k: match.result.get(k) for k in expected}
            if got != expected:
                problems.append(f"{mid}: result {got} != replay {expected}")
        elif match.status == Match.Status.ACTIVE:
            pending = set(moves_by_match[mid].get(match.step, {}))
            if pending != set(Match.seats_of(match.submitted_mask)):
                problems.append(f"{mid}: open step's move rows do not match submitted_mask")
    return problems, checked, len(stored)


# --- pgbench baseline ----------------------------------------------------------------------------


def pgbench(clients: int, seconds: int, database: str) -> dict[str, Any]:
    import psycopg

    exe = shutil.which("pgbench") or next(
        iter(sorted(Path("/usr/lib/postgresql").glob("*/bin/pgbench"))), None
    )
    if exe is None:
        return {"error": "pgbench not found"}
    with psycopg.connect(PG_ADMIN, autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{database}"')
    conn = ["-h", "127.0.0.1", "-U", "postgres"]
    subprocess.run(
        [str(exe), "-i", "-q", "-s", "1", *conn, database],
        check=True,
        capture_output=True,
    )
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write(
            "\\set aid random(1, 100000)\n"
            "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n"
        )
    try:
        run = subprocess.run(
            [
                str(exe),
                "-n",
                "-c",
                str(clients),
                "-j",
                str(min(clients, 2)),
                "-T",
                str(seconds),
                "-f",
                script.name,
                *conn,
                database,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
    finally:
        os.unlink(script.name)
    found = re.search(r"tps = ([\d.]+) \(without initial connection time\)", run.stdout)
    latency = re.search(r"latency average = ([\d.]+) ms", run.stdout)
    return {
        "tps": float(found.group(1)) if found else None,
        "latency_ms": float(latency.group(1)) if latency else None,
        "clients": clients,
        "seconds": seconds,
    }


# --- report --------------------------------------------------------------------------------------


def _machine() -> dict[str, Any]:
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    import psycopg

    with psycopg.connect(PG_ADMIN) as c:
        row = c.execute("SHOW server_version").fetchone()
        settings: dict[str, str] = dict(
            c.execute(
                "SELECT name, setting FROM pg_settings WHERE name IN "
                "('synchronous_commit', 'fsync', 'shared_buffers', 'max_connections')"
            ).fetchall()
        )
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "interpreter": interpreter_build(),
        "postgresql": row[0] if row else "?",
        "postgresql_settings": settings,
    }


def interpreter_description(executable: str, configure: str, maps: str) -> str:
    """The interpreter's path, the optimisation flags its ``configure`` line shows, and whether
    libpython is a shared library in this process. A distribution may optimise its build
    outside ``configure`` (Debian's does), so no flag shown is not proof of a plain build."""
    flags = [flag for flag in ("--enable-optimizations", "--with-lto") if flag in configure]
    shown = " ".join(flags) if flags else "no optimisation flag shown"
    linked = "shared" if "libpython" in maps else "linked in"
    return f"{executable}, configure: {shown}, libpython {linked}"


def interpreter_build() -> str:
    """Which CPython build runs the stack (the server and worker run this interpreter): it
    moves the CPU per move (docs/benchmarks-history.md, eighth round)."""
    with open("/proc/self/maps") as maps:
        return interpreter_description(
            os.path.realpath(sys.executable),
            str(sysconfig.get_config_var("CONFIG_ARGS") or ""),
            maps.read(),
        )


def _cpu_delta(before: CpuSnapshot, after: CpuSnapshot) -> dict[str, float]:
    pg = sum(
        after.postgres.get(pid, 0.0) - before.postgres.get(pid, 0.0)
        for pid in after.postgres.keys() | before.postgres.keys()
        if pid in after.postgres
    )
    # Backends of our database alive at both ends (new ones count from 0).
    pg_db = sum(cpu - before.postgres_db.get(pid, 0.0) for pid, cpu in after.postgres_db.items())
    # A backend that exited between the snapshots is in the postmaster's reaped time already.
    out = {
        "seconds": after.at - before.at,
        "server": after.server - before.server,
        "celery": after.celery - before.celery,
        "postgres": pg,
        "postgres_db": pg_db,
        "generator": after.generator - before.generator,
        "machine": after.machine - before.machine,
    }
    out["other"] = (
        out["machine"] - out["server"] - out["celery"] - out["postgres"] - out["generator"]
    )
    out["workers"] = sorted(  # type: ignore[assignment]
        (cpu - before.workers[pid] for pid, cpu in after.workers.items() if pid in before.workers),
        reverse=True,
    )
    return out


def report(args: argparse.Namespace, play: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    rec: Recorder = play["rec"]
    seconds = play["window"][1] - play["window"][0]
    moves = rec.counts["POST moves"]
    cpu = _cpu_delta(*play["cpu"])
    requests_in_window = sum(rec.counts.values())
    result: dict[str, Any] = {
        "config": {k: v for k, v in vars(args).items()},
        "machine": extra["machine"],
        "players": play["players"],
        "register_s": play["registered_s"],
        "window_s": seconds,
        "moves": moves,
        "moves_per_s": moves / seconds,
        "requests_per_s": requests_in_window / seconds,
        "matches_created": len(play["matches"]),
        "endpoints": {},
        "errors": dict(rec.errors),
        "error_examples": rec.error_examples,
        "cpu": cpu,
        "server_cpu_ms_per_move": cpu["server"] / moves * 1000 if moves else None,
        "server_cpu_ms_per_request": cpu["server"] / requests_in_window * 1000
        if requests_in_window
        else None,
        "postgres_cpu_ms_per_move": cpu["postgres"] / moves * 1000 if moves else None,
        "postgres_db_cpu_ms_per_move": cpu["postgres_db"] / moves * 1000 if moves else None,
        "celery_cpu_ms_per_move": cpu["celery"] / moves * 1000 if moves else None,
        "generator_cpu_us_per_request": cpu["generator"] / requests_in_window * 1e6
        if requests_in_window
        else None,
        "memory": play["memory"],
        **{k: v for k, v in extra.items() if k != "machine"},
    }
    for name in sorted(rec.latency):
        values = rec.latency[name]
        result["endpoints"][name] = {
            "count": len(values),
            "per_s": len(values) / seconds,
            "p50_ms": percentile(values, 0.50) * 1000,
            "p95_ms": percentile(values, 0.95) * 1000,
            "p99_ms": percentile(values, 0.99) * 1000,
            "max_ms": max(values) * 1000,
        }
    if args.rate:
        lag = [x for x in rec.dispatch_lag]
        result["open_loop"] = {
            "offered_per_s": args.rate,
            "dispatch_lag_p50_ms": percentile(lag, 0.5) * 1000,
            "dispatch_lag_p99_ms": percentile(lag, 0.99) * 1000,
            "from_send": {
                name: {"p50_ms": percentile(v, 0.50) * 1000, "p99_ms": percentile(v, 0.99) * 1000}
                for name, v in rec.from_send.items()
                if v
            },
        }
    reads = {}
    for kind, data in play["reads"].items():
        r: Recorder = data["rec"]
        span = r.window[1] - r.window[0]
        rcpu = _cpu_delta(*data["cpu"])
        n = sum(r.counts.values())
        statuses = {name: len(v) for name, v in r.latency.items()}
        all_lat = [x for v in r.latency.values() for x in v]
        reads[kind] = {
            "per_s": n / span if span else 0.0,
            "statuses": statuses,
            "p50_ms": percentile(all_lat, 0.5) * 1000,
            "p99_ms": percentile(all_lat, 0.99) * 1000,
            "server_cpu_ms_per_read": rcpu["server"] / n * 1000 if n else None,
            "errors": dict(r.errors),
            "error_examples": r.error_examples,
        }
        result["errors"].update({f"reads {kind}: {k}": v for k, v in r.errors.items()})
    result["reads"] = reads
    get_counts = {k: v["count"] for k, v in result["endpoints"].items() if k.startswith("GET")}
    total_get = sum(get_counts.values())
    result["play_304_share"] = get_counts.get("GET match 304", 0) / total_get if total_get else None
    if extra.get("pgbench", {}).get("tps"):
        result["ratio_moves_to_pgbench_tps"] = result["moves_per_s"] / extra["pgbench"]["tps"]
    return result


def _print(result: dict[str, Any]) -> None:
    m = result["machine"]
    c = result["config"]
    print(
        f"machine: {m['cores']} cores, {m['cpu']}, Linux {m['kernel']}, Python {m['python']}, "
        f"PostgreSQL {m['postgresql']} {m['postgresql_settings']}"
    )
    print(f"interpreter: {m.get('interpreter', '?')}")
    print(
        f"stack: {c.get('server', 'gunicorn')} {c['workers']}"
        f"{' x ' + c['worker_class'] if c.get('server', 'gunicorn') == 'gunicorn' else ''}"
        f"{' x ' + str(c['threads']) + ' threads' if c['worker_class'] != 'sync' else ''}"
        f", celery worker (solo), DB_CONN_MAX_AGE=600, token cache 30 s, DEBUG off"
    )
    mode = f"open loop at {c['rate']} moves/s" if c["rate"] else "closed loop"
    print(
        f"load: {c['pairs']} GOPS pairs ({c['gops_cards']} cards) + {c['hols']} Hols der Geier "
        f"tables = {result['players']} players, {mode}{', poll per move' if c['poll'] else ''}"
        f"{', Idempotency-Key on moves' if c['idempotency_keys'] else ''}; "
        f"window {result['window_s']:.1f} s after {c['warmup']} s warm-up; "
        f"registration {result['register_s']:.1f} s"
    )
    print(
        f"moves/s: {result['moves_per_s']:.1f} ({result['moves']} moves, "
        f"{result['matches_created']} matches created); requests/s "
        f"{result['requests_per_s']:.1f}"
    )
    print(
        f"{'endpoint':<22}{'count':>8}{'per s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
        f"{'max ms':>9}"
    )
    for name, e in result["endpoints"].items():
        print(
            f"{name:<22}{e['count']:>8}{e['per_s']:>9.1f}{e['p50_ms']:>9.2f}{e['p95_ms']:>9.2f}"
            f"{e['p99_ms']:>9.2f}{e['max_ms']:>9.1f}"
        )
    if result.get("open_loop"):
        o = result["open_loop"]
        print(
            f"open loop: offered {o['offered_per_s']}/s; backlog (send time - scheduled) p50 "
            f"{o['dispatch_lag_p50_ms']:.2f} ms, p99 {o['dispatch_lag_p99_ms']:.2f} ms"
        )
        for name, s in o["from_send"].items():
            print(
                f"open loop: {name} from its actual send (without the generator's backlog): "
                f"p50 {s['p50_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms"
            )
    if result.get("tail", {}).get("joined"):
        t = result["tail"]
        print(
            f"POST moves by part ({t['joined']} joined with the access log, {t['unjoined']} not):"
            " before the web process's Python / inside it / after it"
        )
        for q in ("p50", "p99"):
            print(
                f"  {q}: total {t['total'][q + '_ms']:.2f} ms = before "
                f"{t['before'][q + '_ms']:.2f}, inside {t['inside'][q + '_ms']:.2f}, after "
                f"{t['after'][q + '_ms']:.2f} ms (each part's own {q})"
            )
        w = t["slowest_1pct"]
        print(
            f"  the slowest 1% ({w['count']}): {w['total_mean_ms']:.2f} ms on average = before "
            f"{w['before_mean_ms']:.2f} + inside {w['inside_mean_ms']:.2f} + after "
            f"{w['after_mean_ms']:.2f}; sent in {w['bins_100ms']} of the window's 100 ms spans"
        )
    if result["play_304_share"] is not None:
        print(f"GET match during play: 304 share {result['play_304_share']:.0%}")
    for kind, r in result["reads"].items():
        label = "full reads (200)" if kind == "200" else "conditional reads (If-None-Match)"
        print(
            f"GET match, {label}: {r['per_s']:.1f}/s {r['statuses']}, p50 {r['p50_ms']:.2f} ms,"
            f" p99 {r['p99_ms']:.2f} ms, server CPU {r['server_cpu_ms_per_read'] or 0:.2f} ms"
            " per read"
        )
    cpu = result["cpu"]
    print(
        f"CPU in the window ({cpu['seconds']:.1f} s, {m['cores']} cores = "
        f"{cpu['seconds'] * (m['cores'] or 1):.1f} core-s): web {cpu['server']:.1f} s, "
        f"postgres {cpu['postgres']:.1f} s (its database's backends {cpu['postgres_db']:.1f} s), "
        f"generator {cpu['generator']:.1f} s, celery "
        f"{cpu['celery']:.1f} s, other {cpu['other']:.1f} s (machine busy {cpu['machine']:.1f})"
    )
    if result["server_cpu_ms_per_move"] is not None:
        print(
            f"per move: server CPU {result['server_cpu_ms_per_move']:.2f} ms (all requests of "
            f"the window / moves), postgres {result['postgres_cpu_ms_per_move']:.2f} ms; "
            f"per request: server {result['server_cpu_ms_per_request']:.2f} ms, generator "
            f"{result['generator_cpu_us_per_request']:.0f} µs"
        )
    mem = result["memory"]
    if cpu.get("workers"):
        print(
            "web workers' own CPU in the window (busiest first): "
            + ", ".join(f"{w:.1f} s" for w in cpu["workers"])
        )
    print(
        "web workers at the end: "
        + ", ".join(f"RSS {v['rss_mb']:.0f} MB / PSS {v['pss_mb']:.0f} MB" for v in mem.values())
    )
    if "queries" in result:
        print(
            "queries per request, token cache warm (Django-captured statements / libpq round "
            "trips, both incl. BEGIN/COMMIT; in-process test client):"
        )
        for name, (q, rt) in result["queries"].items():
            print(f"  {name:<32}{q:>3} / {rt}")
    pg = result.get("pgbench")
    if pg:
        if pg.get("tps"):
            print(
                f"pgbench baseline (1-row UPDATE, {pg['clients']} clients, {pg['seconds']} s): "
                f"{pg['tps']:.0f} TPS, latency {pg['latency_ms']:.2f} ms; moves/s ÷ TPS = "
                f"{result['ratio_moves_to_pgbench_tps']:.3f}"
            )
        else:
            print(f"pgbench: {pg}")
    total_errors = sum(result["errors"].values())
    print(f"errors: {total_errors} {result['errors'] or ''}")
    for example in result["error_examples"]:
        print(f"  {example}")
    print(result["audit_line"])


def _run(coroutine: Any, use_uvloop: bool) -> Any:
    if not use_uvloop:
        return asyncio.run(coroutine)
    import uvloop

    return uvloop.run(coroutine)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=16, help="concurrent 2-player GOPS matches")
    parser.add_argument(
        "--hols", type=int, default=0, help="concurrent 5-player Hols der Geier matches"
    )
    parser.add_argument("--gops-cards", type=int, default=13)
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--poll", action="store_true", help="one ETag poll per move per client")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="open loop: moves per second offered (0: closed loop)",
    )
    parser.add_argument(
        "--concurrent-joins",
        action="store_true",
        help="guests of a 3+ seat match join at once (today this can leave the "
        "match unstarted: docs/benchmarks-history.md, 'Findings')",
    )
    parser.add_argument(
        "--users-via-db",
        action="store_true",
        help="create the players in the database instead of POST /register "
        "(PBKDF2 costs ~0.3 CPU-s each, before the window)",
    )
    parser.add_argument(
        "--idempotency-keys", action="store_true", help="send an Idempotency-Key with every move"
    )
    parser.add_argument(
        "--read-seconds",
        type=float,
        default=6.0,
        help="GET match phase: half full reads, half conditional (0: skip)",
    )
    parser.add_argument(
        "--server",
        default="granian",
        choices=("granian", "gunicorn"),
        help="granian: config/web.py (the production default); gunicorn: config/gunicorn.conf.py",
    )
    parser.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 1))
    parser.add_argument(
        "--worker-class",
        default="balanced",
        choices=sorted(WORKER_CLASSES),
        help="gunicorn's worker class (--server gunicorn)",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--pgbench-seconds", type=int, default=8, help="0: skip the baseline")
    parser.add_argument("--no-queries", action="store_true", help="skip the query sampling")
    parser.add_argument("--db", default="facedown_load")
    parser.add_argument("--redis-db", type=int, default=13)
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="directory for py-spy raw profiles of every worker")
    parser.add_argument("--json", help="write every figure to this file")
    parser.add_argument(
        "--rate-share",
        type=float,
        default=0.0,
        help="open loop at this share of the capacity (e.g. 0.6), measured by a closed loop "
        "run with the same settings just before it (both printed)",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="split each move's time into before, inside and after the web process's Python "
        "(the clients' times joined with the access log by request id; bench/tail.py)",
    )
    parser.add_argument(
        "--uvloop", action="store_true", help="run the generator on uvloop (pip install uvloop)"
    )
    args = parser.parse_args(argv)
    if not args.rate_share:
        result = measure(args)
        return 0 if result["ok"] else 1
    # The open loop's rate from a closed loop run just before, with the same settings: the
    # capacity moves with the host (a third between its fast and slow phases here).
    closed = measure(argparse.Namespace(**{**vars(args), "rate": 0.0, "json": None}))
    args.rate = round(args.rate_share * closed["moves_per_s"], 1)
    print(f"\nopen loop at {args.rate_share:.0%} of {closed['moves_per_s']:.1f} moves/s\n")
    result = measure(args)
    if args.json:
        both = {"capacity": closed, "open_loop": result}
        Path(args.json).write_text(json.dumps(both, indent=2, default=str))
    return 0 if closed["ok"] and result["ok"] else 1


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One run on a fresh database and stack: play, audit, report (printed)."""
    stack = Stack(args)
    stack.prepare_database()
    extra: dict[str, Any] = {"machine": _machine()}
    try:
        stack.start()
        play = _run(_play(args, stack), args.uvloop)
    finally:
        stack.stop()
        web_log = stack.web_log.read_text(errors="replace") if args.trace else ""
        stack.web_log.unlink(missing_ok=True)
    if args.trace:
        extra["tail"] = decompose(play["sent"], access_spans(web_log.splitlines()))
    rec: Recorder = play["rec"]
    problems, n_matches, n_moves = audit(rec.accepted)
    if not args.no_queries:  # after the audit: it adds a match of its own
        extra["queries"], extra["query_trace"] = _sample_queries()
    if problems:
        extra["audit_line"] = f"audit: FAILED ({len(problems)} problems)\n  " + "\n  ".join(
            problems[:30]
        )
    else:
        extra["audit_line"] = f"audit: OK ({n_matches} matches, {n_moves} moves)"
    extra["audit_ok"] = not problems
    if args.pgbench_seconds:
        extra["pgbench"] = pgbench(play["players"], args.pgbench_seconds, f"{args.db}_pgbench")
    result = report(args, play, extra)
    _print(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, default=str))
    from django.db import connections

    connections.close_all()  # the next run drops and creates the database
    result["ok"] = not problems and not result["errors"]
    return result


if __name__ == "__main__":
    sys.exit(main())
