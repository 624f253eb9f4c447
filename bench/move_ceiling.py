"""The ceiling of one PostgreSQL on paper: a real move's statements replayed with ``pgbench``.

    .venv/bin/python bench/move_ceiling.py [--clients 1,2,4,8,16] [--seconds 10] [--json out]

The load benchmark's web server and load generator would share the machine's cores with
PostgreSQL; ``pgbench`` alone leaves them to the database. What one run does
(docs/deployment.md, "Past one PostgreSQL", keeps the figures):

1. Starts a PostgreSQL cluster of its own on a free port (the fault tests' ``PostgresCluster``,
   with ``fsync`` on as in production) and loads the migrated schema into it (bench/database.py's
   template), so nothing else on the machine writes to its WAL.
2. Captures a real move: this process sets Django up on that cluster, plays a GOPS match's first
   step through the whole stack (``APIClient``: create, join, both reads, then both sealed
   moves), with ``log_statement = all`` around the two moves; the server's log gives every
   statement each move sent between its ``BEGIN`` and ``COMMIT`` (the match store's locking
   read and its one writing statement) with the values bound to it.
3. Writes a ``pgbench`` script of those statements (``--script`` keeps it): each client owns
   ``--matches-per-client`` copies of the captured match (rows cloned in SQL) and plays them
   in turn, the first seat's move (step stays open) and the second's (resolves the step)
   alternately, with the step, the event numbers, the seat row and the match id substituted so
   every insert is new; everything else is the captured text and values.
4. Runs it (``-M prepared``, like the project's prepared statements) at each ``--clients``
   level for ``--seconds`` and reports transactions (= moves) per second, the cluster's CPU
   (its postmaster's process tree: backends, WAL writer, checkpointer), the whole machine's busy
   CPU (the machine may be shared), and WAL bytes per move (``pg_stat_wal``).

Only the cluster this run started is stopped. ``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.database import PG_SERVER, copy_migrated  # noqa: E402
from bench.load import _children, _machine_busy, _tree_cpu  # noqa: E402
from tests.faults.processes import PostgresCluster, service_env, wait_until  # noqa: E402

MARK = "SELECT 'facedown-move-capture'"
API = "/api/v1"
#: A log line's head (log_line_prefix ``%m [%p] ``): what follows it, and its message.
_LINE = re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[\d+\] (LOG|DETAIL):  (.*)$")
_EXECUTE = re.compile(r"^(?:execute [^:]+|statement): (.*)$", re.S)
_PARAMETER = re.compile(r"\$(\d+) = (NULL|'(?:[^']|'')*')")
#: ``INSERT INTO "table" ("a", "b") VALUES ($1, $2), ($3, $4)`` and ``"column" = $n``.
_INSERT = re.compile(r'INSERT INTO "(\w+)" \(([^)]*)\) VALUES ((?:\([^)]*\)(?:, )?)+)')
_SET = re.compile(r'UPDATE "(\w+)" SET (.*?) WHERE "\w+"\."id" = \$(\d+)')
_ASSIGN = re.compile(r'"(\w+)" = \$(\d+)')
SEAT_ID_BASE = 10_000_000


@dataclass
class Statement:
    sql: str
    parameters: dict[int, str]


# --- capture -------------------------------------------------------------------------------------


def play_first_step() -> None:
    """Through the whole Django stack on the configured database: a GOPS match created, joined
    and read by both seats, then both sealed moves of step 1, each after a mark in the log."""
    from django.db import connection
    from rest_framework.test import APIClient

    from accounts.models import User
    from accounts.tokens import token_issue

    clients = []
    for i in range(2):
        user = User.objects.create_user(f"ceiling-{uuid.uuid4().hex[:8]}-{i}", password=None)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user, name='bench')[1]}")
        client.get(f"{API}/accounts/me")  # the token cache warm, as in steady play
        clients.append((user, client))
    (_, host), (guest_user, guest) = clients
    created = host.post(
        f"{API}/matches", {"game": "gops", "seats": ["me", {"user": guest_user.username}]},
        format="json",
    )  # fmt: skip
    match_id = created.json()["id"]
    assert guest.post(f"{API}/matches/{match_id}/join", {"client_seed": "c"}, format="json")
    for _, client in clients:
        assert client.get(f"{API}/matches/{match_id}").status_code == 200
    for (_, client), card in zip(clients, (1, 2), strict=True):
        with connection.cursor() as cursor:
            cursor.execute(MARK)
        moved = client.post(
            f"{API}/matches/{match_id}/moves", {"step": 1, "move": {"card": card}}, format="json"
        )
        assert moved.status_code == 202, moved.content
    with connection.cursor() as cursor:
        cursor.execute(MARK)
    connection.close()


def log_entries(log: str) -> list[tuple[str, str]]:
    """(kind, message) of every LOG and DETAIL entry, continuation lines joined."""
    entries: list[tuple[str, str]] = []
    for line in log.splitlines():
        head = _LINE.match(line)
        if head:
            entries.append((head.group(1), head.group(2)))
        elif entries:
            entries[-1] = (entries[-1][0], entries[-1][1] + "\n" + line)
    return entries


def captured_moves(log: str) -> list[list[Statement]]:
    """The statements between each pair of marks: one list per move, BEGIN and COMMIT left out."""
    moves: list[list[Statement]] = []
    for kind, message in log_entries(log):
        if kind == "DETAIL" and moves and moves[-1] and message.startswith("parameters: "):
            moves[-1][-1].parameters = {int(n): value for n, value in _PARAMETER.findall(message)}
            continue
        executed = _EXECUTE.match(message) if kind == "LOG" else None
        if executed is None:
            continue
        sql = executed.group(1)
        if sql == MARK:
            moves.append([])
        elif moves and sql not in ("BEGIN", "COMMIT"):
            moves[-1].append(Statement(sql, {}))
    return moves[:-1]  # the last mark closes the second move


def capture(cluster: PostgresCluster) -> list[list[Statement]]:
    """The two moves of a GOPS step as the server received them."""
    cluster.sql("ALTER SYSTEM SET log_statement = 'all'", database="postgres")
    cluster.sql("SELECT pg_reload_conf()", database="postgres")
    start = cluster.log.stat().st_size
    play_first_step()
    cluster.sql("ALTER SYSTEM RESET log_statement", database="postgres")
    cluster.sql("SELECT pg_reload_conf()", database="postgres")
    with cluster.log.open(encoding="utf-8", errors="replace") as log:
        log.seek(start)
        moves = captured_moves(log.read())
    assert len(moves) == 2, moves
    return moves


# --- the pgbench script --------------------------------------------------------------------------


def columns_of(sql: str) -> dict[int, tuple[str, str]]:
    """Each parameter's (table, column), from the INSERT column lists and UPDATE assignments;
    an UPDATE's ``WHERE id = $n`` is (table, "id")."""
    found: dict[int, tuple[str, str]] = {}
    for table, names, rows in _INSERT.findall(sql):
        columns = [name.strip().strip('"') for name in names.split(",")]
        for row in re.findall(r"\(([^)]*)\)", rows):
            for column, slot in zip(columns, row.split(","), strict=True):
                found[int(slot.strip().lstrip("$"))] = (table, column)
    for table, assignments, key in _SET.findall(sql):
        for column, slot in _ASSIGN.findall(assignments):
            found[int(slot)] = (table, column)
        found[int(key)] = (table, "id")
    return found


MATCH_ID = "md5('fd-ceiling-' || :mi)::uuid"


def replayable(statement: Statement) -> str:
    """The statement with its captured values inlined, the identity of the move replaced by
    the script's variables (``:mi`` the match, ``:step``, ``:seat``) so that every run
    inserts new rows: the match id, the step, the move's seat, the events' numbers and the
    seat row's id. A lone ``$1`` (the locking read) is the match id."""
    columns = columns_of(statement.sql)
    events = 0
    values: dict[int, str] = {}
    for n, value in statement.parameters.items():
        table, column = columns.get(n, ("games_match", "id") if n == 1 else ("", ""))
        if column == "match_id" or (table, column) == ("games_match", "id"):
            values[n] = MATCH_ID
        elif (table, column) == ("games_seat", "id"):
            values[n] = f"({SEAT_ID_BASE} + 2 * :mi + :seat)"
        elif (table, column) == ("games_matchevent", "seq"):
            values[n] = f"(4 * :step + :seat + {events})"
            events += 1
        elif column == "step":
            values[n] = ":step + 1" if table == "games_match" else ":step"
        elif (table, column) == ("games_move", "seat"):
            values[n] = ":seat"
        else:
            values[n] = value
    # $12 before $1: a longer number first.
    return re.sub(r"\$(\d+)", lambda m: values[int(m.group(1))], statement.sql)


def pgbench_script(moves: list[list[Statement]], matches_per_client: int) -> str:
    """Client ``c``'s ``n``-th transaction: seat ``n % 2`` of its match ``n / 2 %
    matches_per_client`` at step ``first + n / 2 / matches_per_client`` (``-D first=``)."""
    first, second = (";\n".join(replayable(s) for s in move) + ";" for move in moves)
    return (
        "\\set n :n + 1\n"  # each client's own count (-D n=-1: its first is 0)
        "\\set seat :n % 2\n"
        f"\\set mi :client_id * {matches_per_client} + (:n / 2) % {matches_per_client}\n"
        f"\\set step :first + :n / 2 / {matches_per_client}\n"
        "BEGIN;\n"
        f"\\if :seat = 0\n{first}\n\\else\n{second}\n\\endif\n"
        "COMMIT;\n"
    )


def clone_matches(cluster: PostgresCluster, match_id: str, count: int) -> None:
    """``count`` copies of the captured match (ids ``md5('fd-ceiling-' || i)``) with their two
    seats (ids from ``SEAT_ID_BASE``), cloned column for column in SQL."""
    cluster.sql(
        "INSERT INTO games_match SELECT (jsonb_populate_record(NULL::games_match, to_jsonb(m) "
        "|| jsonb_build_object('id', md5('fd-ceiling-' || i)::uuid))).* "
        f"FROM games_match m, generate_series(0, {count - 1}) i WHERE m.id = '{match_id}'"
    )
    cluster.sql(
        "INSERT INTO games_seat SELECT (jsonb_populate_record(NULL::games_seat, to_jsonb(s) "
        f"|| jsonb_build_object('id', {SEAT_ID_BASE} + 2 * i + s.index, "
        "'match_id', md5('fd-ceiling-' || i)::uuid))).* "
        f"FROM games_seat s, generate_series(0, {count - 1}) i WHERE s.match_id = '{match_id}'"
    )
    cluster.sql("VACUUM ANALYZE")


# --- the run -------------------------------------------------------------------------------------


def _children_cpu() -> float:
    """CPU seconds of this process's waited-for children (pgbench)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def postmaster_pid(cluster: PostgresCluster) -> int:
    return int((cluster.data / "postmaster.pid").read_text().split()[0])


def run_level(
    cluster: PostgresCluster, script: Path, clients: int, seconds: int, first_step: int
) -> dict[str, Any]:
    """One pgbench run, its steps from ``first_step`` on (past every earlier run's): moves/s,
    the cluster's and the machine's CPU, WAL bytes per move."""
    postmaster = postmaster_pid(cluster)
    ((wal_before,),) = cluster.sql("SELECT wal_bytes FROM pg_stat_wal")
    helpers = len(_children(postmaster))  # checkpointer, WAL writer and the like
    cpu_before, busy_before, started = _tree_cpu(postmaster), _machine_busy(), time.monotonic()
    client_before = _children_cpu()
    run = subprocess.run(
        [str(cluster.bin / "pgbench"), "-n", "-M", "prepared", "-f", str(script),
         "-D", "n=-1", "-D", f"first={first_step}",
         "-c", str(clients), "-j", str(min(clients, 2)), "-T", str(seconds),
         "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", "facedown"],
        capture_output=True, text=True, timeout=seconds + 120,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    # The backends' CPU counts once they have exited and been reaped by the postmaster.
    wait_until(lambda: len(_children(postmaster)) <= helpers, 10, "pgbench's backends to exit")
    cpu = _tree_cpu(postmaster) - cpu_before
    busy = _machine_busy() - busy_before
    client = _children_cpu() - client_before
    ((wal_after,),) = cluster.sql("SELECT wal_bytes FROM pg_stat_wal")
    if run.returncode != 0:
        raise RuntimeError(f"pgbench failed:\n{run.stdout}\n{run.stderr}")
    moves = int(re.search(r"number of transactions actually processed: (\d+)", run.stdout)[1])  # type: ignore[index]
    failed = re.search(r"number of failed transactions: (\d+)", run.stdout)
    latency = re.search(r"latency average = ([\d.]+) ms", run.stdout)
    return {
        "clients": clients,
        "moves": moves,
        "failed": int(failed[1]) if failed else 0,
        "moves_per_s": round(moves / elapsed, 1),
        "latency_ms": float(latency[1]) if latency else None,
        "postgres_cpu_cores": round(cpu / elapsed, 2),
        "postgres_cpu_ms_per_move": round(1000 * cpu / max(moves, 1), 3),
        "pgbench_cpu_cores": round(client / elapsed, 2),
        "machine_busy_cores": round(busy / elapsed, 2),
        "wal_bytes_per_move": round((int(wal_after) - int(wal_before)) / max(moves, 1)),
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    cluster = PostgresCluster(fsync=True)
    try:
        cluster.init()
        copy_migrated(cluster.url, args.server)
        os.environ.update(
            service_env(
                DJANGO_SETTINGS_MODULE="config.settings",
                DATABASE_URL=cluster.url,
                REDIS_URL="",
                FACEDOWN_MODE="embedded",
                FACEDOWN_TASK_RUNNER="off",
                FACEDOWN_SIGNING_KEY=secrets.token_hex(32),
                DJANGO_SECRET_KEY=secrets.token_hex(32),
                DJANGO_ALLOWED_HOSTS="testserver",
                DB_CONN_MAX_AGE="600",
                FACEDOWN_VAR_DIR=str(cluster.root / "var"),
                LOG_LEVEL="WARNING",
            )
        )
        import django

        django.setup()
        moves = capture(cluster)
        most = max(args.clients)
        match_id = moves[0][0].parameters[1].strip("'")  # the locking read's only value
        clone_matches(cluster, match_id, most * args.matches_per_client)
        text = pgbench_script(moves, args.matches_per_client)
        script = Path(args.script or tempfile.mkstemp(suffix=".sql", prefix="move-")[1])
        script.write_text(text)
        levels: list[dict[str, Any]] = []
        for clients in args.clients:
            first = 1 + sum(level["moves"] for level in levels)  # a step per move is plenty
            levels.append(run_level(cluster, script, clients, args.seconds, first))
        if not args.script:
            script.unlink()
        return {
            "statements_per_move": [len(m) for m in moves],
            "seconds": args.seconds,
            "cpus": os.cpu_count(),
            "load_average_before": os.getloadavg()[0],
            "levels": levels,
            "best": max(levels, key=lambda level: level["moves_per_s"]),
        }
    finally:
        cluster.destroy()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--clients", type=lambda s: [int(c) for c in s.split(",")], default=[1, 2, 4, 8, 16]
    )
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--matches-per-client", type=int, default=50)
    parser.add_argument("--server", default=PG_SERVER, help="holds the migrated template")
    parser.add_argument("--script", help="keep the pgbench script in this file")
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args(argv)
    result = measure(args)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    print(f"statements per move: {result['statements_per_move']} (plus BEGIN and COMMIT)")
    print(f"load average before the run: {result['load_average_before']:.1f}")
    for level in result["levels"]:
        print(
            "{clients:3d} clients: {moves_per_s:8.1f} moves/s, latency {latency_ms} ms, "
            "PostgreSQL {postgres_cpu_cores} cores ({postgres_cpu_ms_per_move} ms CPU/move), "
            "pgbench {pgbench_cpu_cores} cores, machine {machine_busy_cores} cores busy, "
            "WAL {wal_bytes_per_move} B/move".format(**level)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
