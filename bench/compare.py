"""Facedown against a peer server, back to back in one run, on the same PostgreSQL.

    .venv/bin/python bench/compare.py PEER_DIR [--pairs 8 --duration 20] [--rounds 5]

``PEER_DIR`` is a boardgame.io GOPS server with its own load generator and audit (``run.sh
PAIRS``, see its README). Nothing of it is in this repository, and its directory is only read:
it is copied to ``--work-dir`` (default ``$TMPDIR/facedown-compare-peer``), ``npm ci`` runs
there when ``node_modules`` is missing, and the database ``bgio`` is created when missing.

One run: wait until the machine is quiet, run the peer (``run.sh PAIRS``), wait again, run
``bench/load.py --pairs PAIRS --duration D --users-via-db`` (same number of players, closed
loop, no polling, no read phase, no pgbench), then print both rows and the ratios against the
targets of docs/benchmarks.md ("The targets"). ``--rounds N`` repeats that N times, the
peer first in odd rounds and Facedown first in even ones, and ends with the median of the
rounds' ratios: a single round's ratio moves with the host by ±25% (docs/benchmarks.md), so a
small change needs several.

CPU per move counts everything each side spends in its window, divided by its moves (one bid of
the peer = one sealed move of Facedown):

- Facedown: the web server's master and workers and the Celery worker (``/proc/<pid>/stat`` utime +
  stime of the process trees), and the PostgreSQL backends of its database.
- the peer: its Node server process and the PostgreSQL backends of database ``bgio`` (its load
  generator measures both the same way).

Facedown's stack (``bench/load.py``, its web server and Celery worker) runs on the interpreter
that runs this tool, printed first: run it with a virtual environment of the CPython build you
deploy: the same code spent 6-31% less web CPU per move on Debian's optimised ``python3.11``
(PGO, LTO) than on pyenv's plain build (docs/benchmarks-history.md, eighth round).

Both sides also report the CPU of *all* postgres processes, which on a busy machine includes
other databases' work. "Quiet" means: the whole machine busy at most ``--max-busy`` of its cores
over 2 s (``/proc/stat``); the tool waits up to ``--quiet-wait`` seconds for that and otherwise
warns and runs anyway (the rows then carry the warning). Exit status 1 when a side reports
errors or fails its audit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.load import interpreter_build  # noqa: E402

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"

#: docs/benchmarks.md, "The targets".
TARGET_THROUGHPUT_RATIO = 1.7
TARGET_CPU_RATIO = 0.7


# --- pure parts (tests/bench/test_compare.py) ----------------------------------------------------


def cpu_times(proc_stat_first_line: str) -> tuple[int, int]:
    """(busy, total) clock ticks from the ``cpu`` line of /proc/stat; iowait counts as idle."""
    parts = [int(x) for x in proc_stat_first_line.split()[1:9]]
    total = sum(parts)
    idle = parts[3] + parts[4]
    return total - idle, total


def busy_cores(before: tuple[int, int], after: tuple[int, int], cores: int) -> float:
    """How many cores' worth of CPU the machine spent busy between two ``cpu_times``."""
    total = after[1] - before[1]
    if total <= 0:
        return 0.0
    return cores * (after[0] - before[0]) / total


@dataclass
class Row:
    name: str
    moves_per_s: float
    p50_ms: float | None
    p99_ms: float | None
    server_ms: float  # web/Node process CPU per move
    worker_ms: float  # Celery worker CPU per move (the peer has none)
    database_ms: float  # its database's PostgreSQL backends per move
    postgres_all_ms: float  # every postgres process per move (includes other databases)
    errors: int
    audit_ok: bool
    busy_before: float | None = None  # cores busy on the machine before the run

    @property
    def total_ms(self) -> float:
        return self.server_ms + self.worker_ms + self.database_ms


def peer_row(loadgen: dict[str, Any], audit: dict[str, Any]) -> Row:
    """The peer's row from its load generator's JSON line and its audit's JSON line."""
    bids = float(loadgen["bids_per_s"])
    cpu = loadgen["cpu_pct"]

    def per_bid(pct: float) -> float:
        return pct / 100 / bids * 1000 if bids else float("nan")

    problems = sum(int(v) for v in audit.get("problems", {}).values())
    errors = loadgen.get("errors") or {}
    return Row(
        name="boardgame.io",
        moves_per_s=bids,
        p50_ms=loadgen.get("p50_ms"),
        p99_ms=loadgen.get("p99_ms"),
        server_ms=per_bid(cpu["server"]),
        worker_ms=0.0,
        database_ms=per_bid(cpu["pg_bgio_backends"]),
        postgres_all_ms=per_bid(cpu["pg_all"]),
        errors=sum(int(v) for v in errors.values()) if isinstance(errors, dict) else int(errors),
        audit_ok=problems == 0,
    )


def facedown_row(load: dict[str, Any]) -> Row:
    """Facedown's row from ``bench/load.py --json``."""
    moves = load["moves"]
    cpu = load["cpu"]

    def per_move(seconds: float) -> float:
        return seconds / moves * 1000 if moves else float("nan")

    post = load["endpoints"].get("POST moves", {})
    return Row(
        name="Facedown",
        moves_per_s=float(load["moves_per_s"]),
        p50_ms=post.get("p50_ms"),
        p99_ms=post.get("p99_ms"),
        server_ms=per_move(cpu["server"]),
        worker_ms=per_move(cpu["celery"]),
        database_ms=per_move(cpu["postgres_db"]),
        postgres_all_ms=per_move(cpu["postgres"]),
        errors=sum(int(v) for v in load["errors"].values()),
        audit_ok=bool(load.get("audit_ok")),
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of ``text`` that is a JSON object, in order (run.sh mixes them with text)."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


def parse_peer_output(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(load generator result, audit result) from run.sh's output."""
    objs = json_lines(text)
    loadgen = next((o for o in objs if "bids_per_s" in o), None)
    audit = next((o for o in objs if "finished_ok" in o), None)
    if loadgen is None or audit is None:
        raise ValueError(f"the peer's run printed no result and audit:\n{text[-2000:]}")
    return loadgen, audit


def ratios(ours: Row, peer: Row) -> dict[str, float]:
    return {
        "throughput": ours.moves_per_s / peer.moves_per_s if peer.moves_per_s else float("nan"),
        "cpu_per_move": ours.total_ms / peer.total_ms if peer.total_ms else float("nan"),
    }


def order(rounds: int) -> list[tuple[str, str]]:
    """Which side runs first in each round: peer first, then Facedown first, alternately
    (A B, B A, A B …), so that a host growing faster or slower over the run favours neither."""
    return [("peer", "facedown") if i % 2 == 0 else ("facedown", "peer") for i in range(rounds)]


def medians(runs: list[tuple[Row, Row]]) -> dict[str, float]:
    """The median over rounds of each ratio, each ratio taken within its own round
    (``runs``: (Facedown, peer) per round)."""
    each = [ratios(ours, peer) for ours, peer in runs]
    return {name: statistics.median(r[name] for r in each) for name in each[0]}


def table(rows: list[Row]) -> str:
    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f}"

    lines = [
        "| | moves/s | p50 / p99 ms | CPU per move: server + worker + its PostgreSQL = total "
        "| all postgres / move | errors | audit | machine busy before |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        busy = "-" if r.busy_before is None else f"{r.busy_before:.2f} cores"
        lines.append(
            f"| {r.name} | {r.moves_per_s:.1f} | {ms(r.p50_ms)} / {ms(r.p99_ms)} | "
            f"{r.server_ms:.2f} + {r.worker_ms:.2f} + {r.database_ms:.2f} = "
            f"**{r.total_ms:.2f} ms** | {r.postgres_all_ms:.2f} ms | {r.errors} | "
            f"{'OK' if r.audit_ok else 'FAILED'} | {busy} |"
        )
    return "\n".join(lines)


def verdict(r: dict[str, float]) -> list[str]:
    t, c = r["throughput"], r["cpu_per_move"]
    return [
        f"throughput: {t:.2f} x the peer (target >= {TARGET_THROUGHPUT_RATIO}): "
        + (
            "met"
            if t >= TARGET_THROUGHPUT_RATIO
            else f"missed by {TARGET_THROUGHPUT_RATIO / t:.2f}x"
        ),
        f"CPU per move: {c:.2f} x the peer (target <= {TARGET_CPU_RATIO}): "
        + ("met" if c <= TARGET_CPU_RATIO else f"missed by {c / TARGET_CPU_RATIO:.2f}x"),
    ]


# --- the machine ---------------------------------------------------------------------------------


def _sample_busy(seconds: float = 2.0) -> float:
    with open("/proc/stat") as f:
        a = cpu_times(f.readline())
    time.sleep(seconds)
    with open("/proc/stat") as f:
        b = cpu_times(f.readline())
    return busy_cores(a, b, os.cpu_count() or 1)


def wait_until_quiet(max_busy: float, bound: float) -> float:
    """Cores busy over the last 2 s once that is at most ``max_busy`` x cores, or after
    ``bound`` seconds (with a warning)."""
    cores = os.cpu_count() or 1
    deadline = time.monotonic() + bound
    while True:
        busy = _sample_busy()
        load = Path("/proc/loadavg").read_text().split()[:3]
        if busy <= max_busy * cores:
            print(f"machine quiet: {busy:.2f} of {cores} cores busy, load average {' '.join(load)}")
            return busy
        if time.monotonic() >= deadline:
            print(
                f"WARNING: machine not quiet after {bound:.0f} s: {busy:.2f} of {cores} cores "
                f"busy, load average {' '.join(load)}; running anyway, figures are pessimistic",
                file=sys.stderr,
            )
            return busy
        time.sleep(3)


# --- the peer ------------------------------------------------------------------------------------


def prepare_peer(peer_dir: Path, work_dir: Path) -> Path:
    """A writable copy of the peer with its packages installed (run.sh writes next to itself)."""
    if not (peer_dir / "run.sh").is_file():
        raise SystemExit(f"{peer_dir}: no run.sh")
    work_dir.mkdir(parents=True, exist_ok=True)
    for src in peer_dir.iterdir():
        if src.is_file():
            dst = work_dir / src.name
            if dst.exists():
                dst.chmod(0o755)
            shutil.copyfile(src, dst)
            dst.chmod(0o755 if os.access(src, os.X_OK) else 0o644)
    if not (work_dir / "node_modules").is_dir():
        print(f"npm ci in {work_dir}")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=work_dir, check=True)
    return work_dir


def ensure_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as c:
        if c.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            c.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}")


def run_peer(work_dir: Path, pairs: int) -> Row:
    out = subprocess.run(
        ["bash", "run.sh", str(pairs), f"compare-p{pairs}"],
        cwd=work_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    loadgen, audit = parse_peer_output(out.stdout)
    print(f"peer: {json.dumps(loadgen)}\npeer audit: {json.dumps(audit)}")
    return peer_row(loadgen, audit)


def run_facedown(args: argparse.Namespace) -> Row:
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [
            sys.executable,
            str(ROOT / "bench/load.py"),
            "--pairs",
            str(args.pairs),
            "--duration",
            str(args.duration),
            "--users-via-db",
            "--read-seconds",
            "0",
            "--pgbench-seconds",
            "0",
            "--no-queries",
            "--json",
            f.name,
            *args.load_arg,
        ]
        print("$ " + " ".join(cmd[1:]))
        subprocess.run(cmd, cwd=ROOT, timeout=600)
        load = json.loads(Path(f.name).read_text() or "{}")
    if not load:
        raise SystemExit("bench/load.py wrote no result")
    return facedown_row(load)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("peer_dir", type=Path, help="the peer's directory (with run.sh)")
    parser.add_argument("--pairs", type=int, default=8, help="2-player matches at once, each side")
    parser.add_argument(
        "--duration", type=float, default=20, help="Facedown's window (run.sh fixes the peer's: 20)"
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "facedown-compare-peer",
        help="where the peer is copied and its packages installed",
    )
    parser.add_argument(
        "--max-busy", type=float, default=0.25, help="quiet: at most this share of cores busy"
    )
    parser.add_argument("--quiet-wait", type=float, default=120, help="seconds to wait for quiet")
    parser.add_argument(
        "--load-arg", action="append", default=[], help="extra argument for bench/load.py"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="peer and Facedown this many times each, alternating which goes first; "
        "prints each round and the median of the rounds' ratios",
    )
    parser.add_argument("--json", help="write every round's rows and ratios to this file")
    args = parser.parse_args(argv)

    print(f"Facedown's interpreter: {interpreter_build()}")
    work = prepare_peer(args.peer_dir.resolve(), args.work_dir)
    ensure_database("bgio")
    runs: list[tuple[Row, Row]] = []
    for number, sides in enumerate(order(args.rounds), start=1):
        done: dict[str, Row] = {}
        for side in sides:
            busy = wait_until_quiet(args.max_busy, args.quiet_wait)
            done[side] = run_peer(work, args.pairs) if side == "peer" else run_facedown(args)
            done[side].busy_before = busy
        ours, peer = done["facedown"], done["peer"]
        runs.append((ours, peer))
        print()
        print(
            f"round {number} of {args.rounds} ({' then '.join(sides)}): "
            f"{args.pairs * 2} players each, closed loop, no polling"
        )
        print(table([ours, peer]))
        for line in verdict(ratios(ours, peer)):
            print(line)
    summary = medians(runs)
    if args.rounds > 1:
        print()
        print(f"median of the {args.rounds} rounds' ratios (each taken within its round):")
        for line in verdict(summary):
            print(line)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "rounds": [
                        {"rows": [asdict(ours), asdict(peer)], "ratios": ratios(ours, peer)}
                        for ours, peer in runs
                    ],
                    "median_ratios": summary,
                },
                indent=2,
            )
        )
    ok = all(row.errors == 0 and row.audit_ok for pair in runs for row in pair)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
