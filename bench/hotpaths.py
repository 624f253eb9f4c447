"""CPU per request of the hot paths, in-process: a figure that survives a busy machine.

    .venv/bin/python bench/hotpaths.py [--repeats 5] [--moves-matches 6] [--reads 200]
    .venv/bin/python bench/hotpaths.py --profile /tmp/hot.prof --only "POST moves"
    .venv/bin/python bench/hotpaths.py --callgrind --only "POST moves" --repeats 2 --moves-matches 2

Wall-clock throughput on a shared machine measures the neighbours as much as the server. This
tool measures what one request costs the web process itself: it calls the production WSGI
application (``config.wsgi.application``, the whole middleware stack, ``DEBUG`` off, throttles,
token authentication, signatures and events all on) in a loop, the way gunicorn calls it, and
takes ``time.process_time()`` (this process's CPU, all threads) around each call. PostgreSQL's
and Redis's own CPU is not in it (other processes); the round trips' client side is.

Paths: ``POST /moves`` (both seats of 2-player GOPS matches, every step until the forced last
card: the step-open and the step-resolving moves mixed as in play), a full ``GET
/matches/{id}``, a 304 ``GET /matches/{id}`` (``If-None-Match``), ``GET /matches/{id}/events``
(the feed from the start of a match mid-play), ``GET /matches`` (a player's list), ``POST
/matches`` (a 2-player GOPS match with a guest invited) and ``POST /matches/{id}/join`` (the
guest's join, which starts the match); and "move service", the same moves made by calling
the move service directly (no HTTP, Django handler, middleware, DRF, authentication, throttle
or idempotency wrapper): the difference from "POST moves" is what the framework around a move
costs. Each figure is the median over ``--repeats`` rounds of the mean CPU per request in that
round; the spread (min-max of the rounds) is printed beside it.

``--callgrind`` runs it again under ``valgrind --tool=callgrind`` and counts the instructions
of the measured requests of one path only (the instrumentation is switched on and off around
them by ``callgrind_control``; fixed hash seed): a count that does not move with the machine's
load (the same run twice agrees within about 0.3%), so a change of 1% is seen in one A/B pair.
It counts the web process's own instructions in user space, not its system calls' time nor
PostgreSQL's work, and about 50 times slower than a plain run (a few minutes).

Its own database ``facedown_hotpaths`` (dropped and re-created migrated, a copy of
bench/database.py's template, ``--db``) and Redis db 11 (flushed, ``--redis-db``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.database import fresh_database  # noqa: E402

API = "/api/v1"


def _environment(db: str, redis_db: int) -> None:
    from bench.load import production_env

    os.environ.update(production_env(db, redis_db))


#: The paths measured, in order (``--only`` picks some).
KINDS = [
    "POST moves",
    "move service",
    "GET match",
    "GET match 304",
    "GET events",
    "GET matches",
    "POST create",
    "POST join",
]


class Wsgi:
    """Calls the WSGI application as gunicorn does: one environ per request, the body iterated
    and ``close()`` called (Django's ``request_finished`` runs there)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.cpu = 0.0  # CPU seconds spent inside requests, since the last reset

    def call(
        self,
        method: str,
        path: str,
        token: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        query: str = "",
    ) -> tuple[int, dict[str, str], bytes]:
        raw = b"" if body is None else json.dumps(body).encode()
        environ: dict[str, Any] = {
            "REQUEST_METHOD": method,
            "SCRIPT_NAME": "",
            "PATH_INFO": API + path,
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_AUTHORIZATION": f"Bearer {token}",
            "HTTP_ACCEPT": "application/json",
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(raw),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }
        if raw:
            environ["CONTENT_TYPE"] = "application/json"
            environ["CONTENT_LENGTH"] = str(len(raw))
        for name, value in (headers or {}).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        status: list[str] = []
        response_headers: dict[str, str] = {}

        def start_response(s: str, h: list[tuple[str, str]], exc_info: Any = None) -> None:
            status.append(s)
            response_headers.update((k.lower(), v) for k, v in h)

        started = time.process_time()
        result = self.app(environ, start_response)
        try:
            content = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        self.cpu += time.process_time() - started
        return int(status[0].split()[0]), response_headers, content


def _backend_cpu() -> tuple[int, float]:
    """(pid, CPU seconds) of this thread's PostgreSQL backend, from /proc: the server side of the
    same requests (PostgreSQL runs on this machine; clock-tick resolution, 10 ms)."""
    from django.db import connection

    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return pid, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _players(count: int) -> list[tuple[str, str]]:
    from accounts.models import User
    from accounts.tokens import tokens_bulk_issue

    run = uuid.uuid4().hex[:6]
    users = User.objects.bulk_create(
        [User(username=f"hot-{run}-{i}", password="!") for i in range(count)]
    )
    tokens = tokens_bulk_issue(users, name="bench")
    return [(u.username, t) for u, t in zip(users, tokens, strict=True)]


def _expect(answer: tuple[int, dict[str, str], bytes], status: int, what: str) -> Any:
    if answer[0] != status:
        raise SystemExit(f"{what}: {answer[0]} {answer[2][:300]!r}")
    return json.loads(answer[2]) if answer[2] else None


def _create(w: Wsgi, host: tuple[str, str], guest: tuple[str, str]) -> tuple[str, tuple[str, str]]:
    """A 2-player GOPS match with ``guest`` invited: (its id, the guest)."""
    created = _expect(
        w.call("POST", "/matches", host[1], {"game": "gops", "seats": ["me", {"user": guest[0]}]}),
        201,
        "create",
    )
    return created["id"], guest


def _join(w: Wsgi, match_id: str, guest: tuple[str, str]) -> None:
    _expect(
        w.call("POST", f"/matches/{match_id}/join", guest[1], {"client_seed": "hot"}), 200, "join"
    )


def _created(
    w: Wsgi, pairs: list[list[tuple[str, str]]], count: int
) -> list[tuple[str, tuple[str, str]]]:
    """At least ``count`` matches created (CPU not counted), for a round of joins."""
    before = w.cpu
    made = [_create(w, h, g) for _ in range(count // len(pairs) + 1) for h, g in pairs]
    w.cpu = before
    return made


def _new_match(w: Wsgi, host: tuple[str, str], guest: tuple[str, str]) -> str:
    match_id, _ = _create(w, host, guest)
    _join(w, match_id, guest)
    return match_id


def _play(w: Wsgi, match_id: str, seats: list[tuple[str, str]], steps: int | None = None) -> int:
    """Both seats play card = step (always in hand: GOPS hands are 1..13) until the forced last
    card or ``steps`` steps; returns the moves posted. Only the moves count in ``w.cpu``: the
    opening read's CPU is taken off again."""
    before = w.cpu
    view = _expect(w.call("GET", f"/matches/{match_id}", seats[0][1]), 200, "read")
    w.cpu = before
    step, posted = view["step"], 0
    last = step + len(view["view"]["hand"]) - 2  # the last card is forced
    if steps is not None:
        last = min(last, step + steps - 1)
    while step <= last:
        for _, token in seats:
            _expect(
                w.call(
                    "POST",
                    f"/matches/{match_id}/moves",
                    token,
                    {"step": step, "move": {"card": step}},
                ),
                202,
                "move",
            )
            posted += 1
        step += 1
    return posted


def _play_service(w: Wsgi, match_id: str, seats: list[tuple[str, str]]) -> int:
    """As ``_play``, calling the move service (``games.services.moves.move_submit``) directly:
    the same unit of work, rules, receipts, events, publication and notifications, without
    HTTP, Django's handler and middleware, DRF, authentication, throttles and the idempotency
    wrapper. The difference from "POST moves" is what the framework around a move costs."""
    from accounts.models import User
    from games.services.moves import move_submit

    users = {u.username: u for u in User.objects.filter(username__in=[n for n, _ in seats])}
    before = w.cpu
    view = _expect(w.call("GET", f"/matches/{match_id}", seats[0][1]), 200, "read")
    w.cpu = before
    step, posted = view["step"], 0
    last = step + len(view["view"]["hand"]) - 2  # the last card is forced
    while step <= last:
        for name, _ in seats:
            started = time.process_time()
            move_submit(match_id=match_id, user=users[name], step=step, move={"card": step})
            w.cpu += time.process_time() - started
            posted += 1
        step += 1
    return posted


def _round(w: Wsgi, requests: Iterable[Callable[[], Any]]) -> tuple[float, int]:
    w.cpu, n = 0.0, 0
    for request in requests:
        request()
        n += 1
    return w.cpu / n * 1e6 if n else float("nan"), n


class ServerSide:
    """The PostgreSQL backend's CPU over a round, per request (nan if the connection changed)."""

    def __enter__(self) -> ServerSide:
        self.pid, self.start = _backend_cpu()
        return self

    def __exit__(self, *exc: Any) -> None:
        pid, end = _backend_cpu()
        self.seconds = end - self.start if pid == self.pid else float("nan")

    def per(self, n: int) -> float:
        return self.seconds / n * 1e6 if n else float("nan")


def measure(args: argparse.Namespace) -> dict[str, list[float]]:
    import django

    django.setup()
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    from config.wsgi import application

    w = Wsgi(application)
    players = _players(2 * args.moves_matches)
    pairs = [players[i : i + 2] for i in range(0, len(players), 2)]
    # Warm-up: token cache, connections, prepared statements, one whole match per pair.
    for host, guest in pairs:
        _play(w, _new_match(w, host, guest), [host, guest], None)

    # A reading set: one match per pair, halfway through.
    reading = [(_new_match(w, h, g), h, g) for h, g in pairs]
    for match_id, h, g in reading:
        _play(w, match_id, [h, g], 6)
    etags: dict[str, str] = {}
    for match_id, h, _ in reading:
        etags[match_id] = w.call("GET", f"/matches/{match_id}", h[1])[1]["etag"]

    def reads(kind: str) -> list[Callable[[], Any]]:
        def full(match_id: str, token: str) -> Any:
            return _expect(w.call("GET", f"/matches/{match_id}", token), 200, kind)

        def conditional(match_id: str, token: str) -> Any:
            headers = {"If-None-Match": etags[match_id]}
            return _expect(w.call("GET", f"/matches/{match_id}", token, headers=headers), 304, kind)

        def events(match_id: str, token: str) -> Any:
            answer = w.call("GET", f"/matches/{match_id}/events", token, query="after=0")
            return _expect(answer, 200, kind)

        def listing(match_id: str, token: str) -> Any:
            return _expect(w.call("GET", "/matches", token), 200, kind)

        read = {"GET match": full, "GET match 304": conditional, "GET events": events}
        one = read.get(kind, listing)
        out: list[Callable[[], Any]] = []
        for i in range(args.reads):
            match_id, host, _ = reading[i % len(reading)]
            out.append(partial(one, match_id, host[1]))
        return out

    results: dict[str, list[float]] = {}
    counted: dict[str, int] = {}  # requests measured per path, for ``--callgrind``
    kinds = KINDS
    if args.only:
        kinds = [k for k in kinds if k in args.only]
    profiler: Any = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)
    elif args.callgrind:
        profiler = Callgrind()
    unjoined: list[tuple[str, tuple[str, str]]] = []  # "POST create"'s matches, for "POST join"
    for _ in range(args.repeats):
        for kind in kinds:
            if kind in ("POST moves", "move service"):
                matches = [(_new_match(w, h, g), h, g) for h, g in pairs]
                via = w
                via.cpu, posted = 0.0, 0
                play = _play_service if kind == "move service" else _play
                if profiler:
                    profiler.enable()
                with ServerSide() as server:
                    for match_id, h, g in matches:
                        posted += play(via, match_id, [h, g])
                if profiler:
                    profiler.disable()
                results.setdefault(kind, []).append(via.cpu / posted * 1e6)
                counted[kind] = counted.get(kind, 0) + posted
                results.setdefault(f"{kind} (PostgreSQL)", []).append(server.per(posted))
                continue
            if kind == "POST create":
                rounds = args.reads // 4 // len(pairs) + 1
                batch = [
                    lambda h=h, g=g: unjoined.append(_create(w, h, g)) for h, g in pairs
                ] * rounds
            elif kind == "POST join":
                if not unjoined:
                    unjoined.extend(_created(w, pairs, args.reads // 4))
                batch = [lambda m=m, g=g: _join(w, m, g) for m, g in unjoined]
                unjoined.clear()
            else:
                batch = reads(kind)
            if profiler:
                profiler.enable()
            with ServerSide() as server:
                us, n = _round(w, batch)
            if profiler:
                profiler.disable()
            results.setdefault(kind, []).append(us)
            counted[kind] = counted.get(kind, 0) + n
            results.setdefault(f"{kind} (PostgreSQL)", []).append(server.per(n))
    if args.profile:
        profiler.dump_stats(args.profile)
    if args.callgrind:
        print(f"requests counted under callgrind: {json.dumps(counted)}")
    return results


_UNDER_CALLGRIND = "FACEDOWN_HOTPATHS_UNDER_CALLGRIND"


def _callgrind_run(argv: list[str], args: argparse.Namespace) -> int:
    """Run this script again under ``valgrind --tool=callgrind`` (instrumentation off until
    ``Callgrind.enable``, a fixed hash seed) and print the instructions per request."""
    import re
    import subprocess
    import tempfile

    if not args.only or len(args.only) != 1:
        raise SystemExit("--callgrind counts one path: give exactly one --only")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.callgrind_out or f"{tmp}/callgrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out}",
                sys.executable,
                str(Path(__file__).resolve()),
                *argv,
            ],
            env={**os.environ, _UNDER_CALLGRIND: "1", "PYTHONHASHSEED": "0"},
            capture_output=True,
            text=True,
        )
    sys.stdout.write(run.stdout)
    collected = re.search(r"Collected : (\d+)", run.stderr)
    counted = re.search(r"requests counted under callgrind: (\{.*\})", run.stdout)
    if run.returncode or not collected or not counted:
        sys.stderr.write(run.stderr[-3000:])
        return run.returncode or 1
    requests = sum(json.loads(counted.group(1)).values())
    total = int(collected.group(1))
    print(
        f"instructions per request, {args.only[0]}: {total / requests:,.0f} ({requests} requests)"
    )
    return 0


class Callgrind:
    """Instruction counting on for the measured requests only (``--callgrind``): the process
    runs under ``valgrind --tool=callgrind --instr-atstart=no``, and ``callgrind_control``
    switches the instrumentation on and off around each measured round. Instructions, unlike
    CPU seconds, do not move with the machine's load: an A/B of a 1% change is visible."""

    def _switch(self, state: str) -> None:
        import subprocess

        subprocess.run(
            ["callgrind_control", f"--instr={state}", str(os.getpid())],
            check=True,
            capture_output=True,
        )

    def enable(self) -> None:
        self._switch("on")

    def disable(self) -> None:
        self._switch("off")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--moves-matches", type=int, default=6, help="2-player matches played per round"
    )
    parser.add_argument("--reads", type=int, default=200, help="requests per read round")
    parser.add_argument("--db", default="facedown_hotpaths")
    parser.add_argument("--redis-db", type=int, default=11)
    parser.add_argument("--only", action="append", help="measure only this path (repeatable)")
    parser.add_argument("--profile", help="write a cProfile of the measured requests here")
    parser.add_argument("--json", help="write the rounds' figures to this file")
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="count the instructions of the measured requests of one path, under valgrind",
    )
    parser.add_argument(
        "--callgrind-out",
        help="keep callgrind's output file here (for callgrind_annotate)",
    )
    args = parser.parse_args(argv)
    under_callgrind = bool(os.environ.get(_UNDER_CALLGRIND))
    if not under_callgrind:  # the database is made outside valgrind, where it is fast
        fresh_database(args.db)  # migrated: a copy of the template (bench/database.py)
    if args.callgrind and not under_callgrind:
        return _callgrind_run(argv if argv is not None else sys.argv[1:], args)
    _environment(args.db, args.redis_db)
    results = measure(args)
    print(
        f"CPU per request (µs; median of {args.repeats} rounds, min-max): the web process, "
        "and its PostgreSQL backend"
    )
    for kind, rounds in results.items():
        print(
            f"  {kind:<29}{statistics.median(rounds):>8.0f}   ({min(rounds):.0f}-{max(rounds):.0f})"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
