"""Smoke test of the load benchmark (bench/load.py): a tiny run of the whole harness.

It runs the real stack (gunicorn + a Celery worker) on databases of its own (the test
settings' database name + ``_load_smoke``, so parallel runs with their own ``DATABASE_URL`` do
not clash; this run's Redis database), never the test database, and checks that every request
succeeded and that the audit found every accepted move exactly once and every match replayable.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_interpreter_line_says_what_the_build_shows() -> None:
    from bench.load import interpreter_description

    official = interpreter_description(
        "/usr/local/bin/python3.11",
        "'--enable-optimizations' '--enable-shared' '--with-lto' '--without-ensurepip'",
        "7f00 r-xp /usr/local/lib/libpython3.11.so.1.0\n",
    )
    assert official == (
        "/usr/local/bin/python3.11, configure: --enable-optimizations --with-lto, libpython shared"
    )
    plain = interpreter_description(
        "/opt/py/bin/python3.11", "'--enable-shared'", "/usr/lib/libc.so.6"
    )
    assert (
        plain
        == "/opt/py/bin/python3.11, configure: no optimisation flag shown, libpython linked in"
    )


def test_an_open_loop_move_is_timed_from_its_schedule_and_from_its_send() -> None:
    """The open loop's latency counts from the scheduled time (so a late send is not hidden);
    the time from the actual send is kept beside it, the server's part without the backlog."""
    sys.path.insert(0, str(ROOT))
    from bench.load import Recorder

    rec = Recorder(window=(10.0, 20.0))
    rec.record("POST moves", 11.0, 11.5, sent=11.4)  # sent 0.4 s late, answered in 0.1 s
    rec.record("POST create", 12.0, 12.2)  # closed loop: no schedule
    rec.record("POST moves", 19.0, 21.0, sent=19.0)  # answered after the window: not counted
    assert rec.latency["POST moves"] == [0.5]
    assert rec.from_send["POST moves"] == [pytest.approx(0.1)]
    assert "POST create" not in rec.from_send
    assert rec.requests_total == 3


def test_the_generator_backlog_is_counted_for_sends_scheduled_in_the_window() -> None:
    import argparse
    import asyncio

    from bench.load import Load

    load = Load(argparse.Namespace(rate=100.0, seed=1), port=1)
    now = time.monotonic()
    load.rec.window = (now + 0.02, now + 10)
    load.stop_at = now + 10
    load.pacer_next = now - 1.0  # a second behind, in the warm-up
    late = asyncio.run(load.slot())
    assert late == pytest.approx(now - 1.0)
    assert load.rec.dispatch_lag == []  # the warm-up's backlog is not the window's
    load.pacer_next = now + 0.03  # on time, in the window: waited for, then counted
    on_time = asyncio.run(load.slot())
    assert time.monotonic() >= on_time == pytest.approx(now + 0.03)
    assert len(load.rec.dispatch_lag) == 1 and 0 <= load.rec.dispatch_lag[0] < 0.05
    load.pacer_next = now + 10  # past the end: no send
    assert asyncio.run(load.slot()) is None


@pytest.mark.slow
def test_load_benchmark_smoke(tmp_path: Path, redis_db: str) -> None:
    """One run through every path of the harness: registered players, GOPS pairs and a Hols
    table with polling, the reads, pgbench and the query sample, first as the closed loop that
    measures the capacity, then as an open loop at a share of it, traced (one run where two
    smokes, each with a stack of its own, used to split these paths between them). Through a
    PgBouncer of its own where one is installed (``--db-mode pooled``; every other test plays
    directly)."""
    from bench.pooler import pgbouncer_binary

    out = tmp_path / "load.json"
    mode = "pooled" if pgbouncer_binary() else "direct"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "load.py"),
            *("--pairs", "2", "--hols", "1", "--gops-cards", "5"),
            *("--duration", "2", "--warmup", "0.5", "--poll"),
            *("--read-seconds", "1", "--pgbench-seconds", "1", "--uvloop"),
            *("--rate-share", "0.5", "--trace"),
            "--db",
            f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_load_smoke",
            *("--redis-db", redis_db, "--json", str(out)),
            *("--db-mode", mode),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("audit: OK") == 2, run.stdout
    both = json.loads(out.read_text())
    capacity, open_loop = both["capacity"], both["open_loop"]
    for result in (capacity, open_loop):
        assert result["errors"] == {} and result["audit_ok"] is True
        assert result["reads"]["304"]["statuses"].get("GET match 304", 0) > 0
        assert result["pgbench"]["tps"] > 0
    assert capacity["moves"] > 0
    assert capacity["config"]["db_mode"] == mode
    if mode == "pooled":  # no pipelined BEGIN and COMMIT behind the pooler: 4 round trips
        assert capacity["queries"]["POST moves (step stays open)"][1] == 4
    assert capacity["endpoints"]["POST moves"]["count"] == capacity["moves"]
    # The interpreter that ran the stack, and how it was built (it moves the CPU per move).
    interpreter = capacity["machine"]["interpreter"]
    assert interpreter.startswith(str(Path(sys.executable).resolve()) + ", configure: ")
    assert "libpython shared" in interpreter or "libpython linked in" in interpreter
    # The open loop at half the capacity measured just before.
    assert capacity["config"]["rate"] == 0.0 and "open_loop" not in capacity
    assert capacity["moves_per_s"] > 0
    assert open_loop["config"]["rate"] == round(0.5 * capacity["moves_per_s"], 1)
    assert open_loop["open_loop"]["offered_per_s"] == open_loop["config"]["rate"]
    # --trace: every move of the window found in the web server's access log by its request id.
    tail = open_loop["tail"]
    assert tail["joined"] == open_loop["moves"] and tail["unjoined"] == 0
    assert tail["inside"]["p50_ms"] > 0 and tail["before"]["max_ms"] < tail["total"]["max_ms"]
    assert "POST moves by part" in run.stdout
