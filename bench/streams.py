"""Streams benchmark: many idle stream connections on one uvicorn process, and the time an
event takes to reach all of them.

    .venv/bin/python bench/streams.py                 # 1000 connections, 24 commits
    .venv/bin/python bench/streams.py -n 20 --json out.json

What one run does (docs/benchmarks.md, "Live streams", keeps the results):

1. Drops and creates the PostgreSQL database ``--db`` (default ``facedown_streams_bench``),
   migrated (a copy of bench/database.py's template), and makes three users and a 13-card
   GOPS match between two of them (``disclose_submitted``: every move is an event).
2. Starts ONE uvicorn process (``config.asgi``, httptools, uvloop) with ``DB_CONN_MAX_AGE=0``
   and the Redis bus (``--redis-db``); the open-file limit of both processes is raised to
   the hard limit.
3. Opens ``-n`` stream connections (``GET /matches/{id}/stream``, the spectator's token,
   SSE), 50 at a time, each reading its snapshot; the server's resident memory (VmRSS of
   /proc) is read after 20 warm-up connections and again once all are open and idle for 3 s:
   memory per connection = the difference ÷ (n - 20).
4. Plays ``--commits`` moves (one commit each, through the services as the API would, in a
   process of its own; each commit publishes its events on Redis after it commits), one every
   ``--gap`` seconds, and records when each connection receives each event: latency = receipt
   minus the moment the move was sent to the database (so it includes the commit). Reports the
   median, p99 and maximum over all deliveries, and the median and p99 of the time until the
   LAST connection had each event ("reached all").

Exit status 1 when a delivery is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.database import fresh_database  # noqa: E402

PG_ADMIN = os.environ.get("FACEDOWN_BENCH_PG", "postgres://postgres@127.0.0.1:5432/postgres")
WARMUP = 20


def _raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def prepare(args: argparse.Namespace, env: dict[str, str]) -> dict[str, Any]:
    fresh_database(args.db, PG_ADMIN.rpartition("/")[0])  # migrated (bench/database.py)
    os.environ.update(env)
    import django

    django.setup()
    import redis

    from accounts.models import User
    from accounts.tokens import token_issue
    from games.services.matches import SeatSpec, match_create, match_join

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    users = [User.objects.create_user(username=name) for name in ("north", "south", "watcher")]
    match = match_create(
        creator=users[0],
        game="gops",
        seats=[SeatSpec("me"), SeatSpec("user", username="south")],
        disclose_submitted=True,
    )
    match_join(match_id=match.id, user=users[1])
    token = token_issue(users[2], name="bench")[1]
    return {"match": str(match.id), "token": token, "players": users[:2]}


class Client:
    """One idle SSE connection: records when each event seq arrives."""

    def __init__(self) -> None:
        self.received: dict[int, float] = {}
        self.ready = asyncio.Event()

    async def run(self, port: int, path: str, token: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Token {token}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        try:
            while line := await reader.readline():
                if line.startswith(b"event: snapshot"):
                    self.ready.set()
                elif line.startswith(b"id: "):
                    self.received.setdefault(int(line[4:]), time.monotonic())
        finally:
            writer.close()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(args: argparse.Namespace, setup: dict[str, Any], port: int, pid: int) -> Any:
    path = f"/api/v1/matches/{setup['match']}/stream"
    clients: list[Client] = []
    tasks: list[asyncio.Task[None]] = []

    async def open_batch(count: int) -> None:
        batch = [Client() for _ in range(count)]
        clients.extend(batch)
        tasks.extend(asyncio.create_task(c.run(port, path, setup["token"])) for c in batch)
        await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in batch)), 60)

    await open_batch(WARMUP)
    await asyncio.sleep(2)
    rss_before = _rss_kib(pid)
    opened = time.monotonic()
    remaining = args.n - WARMUP
    while remaining > 0:
        await open_batch(min(50, remaining))
        remaining -= min(50, remaining)
    open_seconds = time.monotonic() - opened
    await asyncio.sleep(3)
    rss_after = _rss_kib(pid)

    # The moves come from another process (as from the web processes in production), so the
    # clients' work here never delays a commit; time.monotonic() is one clock for both.
    publisher = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).resolve()), "--publish", json.dumps(
            {"match": setup["match"], "commits": args.commits, "gap": args.gap}
        ),
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await publisher.communicate()
    sent_at = {int(seq): sent for seq, sent in json.loads(out.decode().splitlines()[-1]).items()}
    waited = time.monotonic() + 60  # every delivery, or a minute
    while time.monotonic() < waited and any(
        seq not in c.received for c in clients for seq in sent_at
    ):
        await asyncio.sleep(0.2)
    latencies: list[float] = []
    reached_all: list[float] = []
    missing = 0
    for seq, sent in sent_at.items():
        times = [c.received.get(seq) for c in clients]
        got = [t - sent for t in times if t is not None]
        missing += len(times) - len(got)
        latencies += got
        if got:
            reached_all.append(max(got))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    ms = 1000.0
    return {
        "connections": args.n,
        "commits": args.commits,
        "events": len(sent_at),
        "deliveries": len(latencies),
        "missing": missing,
        "rss_kib_before": rss_before,
        "rss_kib_after": rss_after,
        "kib_per_connection": round((rss_after - rss_before) / max(1, args.n - WARMUP), 2),
        "open_seconds": round(open_seconds, 2),
        "latency_ms_median": round(statistics.median(latencies) * ms, 1),
        "latency_ms_p99": round(_percentile(latencies, 0.99) * ms, 1),
        "latency_ms_max": round(max(latencies) * ms, 1),
        "reached_all_ms_median": round(statistics.median(reached_all) * ms, 1),
        "reached_all_ms_p99": round(_percentile(reached_all, 0.99) * ms, 1),
        "load_average": os.getloadavg(),
    }


def publish(spec: dict[str, Any]) -> None:
    """The publisher process: one move (one commit) every ``gap`` seconds; prints, as its
    last line, when each event's move was sent to the database, by seq."""
    import django

    django.setup()
    from accounts.models import User
    from games.models import Match
    from games.services.moves import move_submit

    players = [User.objects.get(username=name) for name in ("north", "south")]
    sent_at: dict[int, float] = {}
    for index in range(spec["commits"]):
        match = Match.objects.get(pk=spec["match"])
        before = match.last_seq
        sent = time.monotonic()
        # GOPS: each seat bids its cards from the top, one per step.
        move_submit(
            match_id=match.id,
            user=players[index % 2],
            step=match.step,
            move={"card": 13 - match.step + 1},
        )
        after = Match.objects.values_list("last_seq", flat=True).get(pk=match.id)
        sent_at.update((seq, sent) for seq in range(before + 1, after + 1))
        time.sleep(spec["gap"])
    print(json.dumps(sent_at))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=1000, help="idle stream connections")
    parser.add_argument("--commits", type=int, default=24, help="moves (commits) to deliver")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between commits")
    parser.add_argument("--db", default="facedown_streams_bench")
    parser.add_argument("--redis-db", type=int, default=11)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--publish", help=argparse.SUPPRESS)  # the publisher process
    args = parser.parse_args()
    if args.publish:
        publish(json.loads(args.publish))
        return 0
    if args.commits > 24:
        parser.error("a 13-card GOPS match has room for 24 commits of two moves")
    _raise_nofile()
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # What production refuses to start without (docs/deployment.md).
        "DJANGO_SECRET_KEY": secrets.token_hex(32),
        "FACEDOWN_SIGNING_KEY": secrets.token_hex(32),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost,bench",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{args.db}",
        "REDIS_URL": f"redis://127.0.0.1:6379/{args.redis_db}",
        "FACEDOWN_TASK_RUNNER": "off",
        "DB_CONN_MAX_AGE": "0",
        "FACEDOWN_TOKEN_CACHE_SECONDS": "30",
        # One token of one user on one address holds every connection: the per-token, per-user
        # and per-address limits (docs/live.md, "Limits") would refuse all but the first 10.
        "FACEDOWN_LIVE_MAX_STREAMS_PER_USER": str(args.n + 100),
        "FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN": str(args.n + 100),
        "FACEDOWN_LIVE_MAX_STREAMS_PER_ADDRESS": str(args.n + 100),
        "FACEDOWN_THROTTLE_LIVE_OPENS": "1000000/min",
        "FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS": "1000000/min",
        "PYTHONPATH": str(ROOT),
    }
    setup = prepare(args, env)
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
            "--port", str(port), "--log-level", "warning", "--loop", "uvloop", "--http",
            "httptools", "--backlog", "4096", "--timeout-graceful-shutdown", "1",
        ],
        env=os.environ | env,
        cwd=ROOT,
        preexec_fn=_raise_nofile,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120  # a busy machine imports slowly
        while time.monotonic() < deadline and server.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        import uvloop

        result = uvloop.run(measure(args, setup, port, server.pid))
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 1 if result["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
