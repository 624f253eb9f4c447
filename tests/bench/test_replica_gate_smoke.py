"""Smoke test of the replica gate's cost benchmark (bench/replica_gate.py): a tiny run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_replica_gate_benchmark_runs(redis_db: str) -> None:
    redis_url = settings.REDIS_URL.rpartition("/")[0] + f"/{redis_db}"
    db = settings.DATABASES["default"]
    database = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/postgres"
    run = subprocess.run(
        [sys.executable, "bench/replica_gate.py", "--calls", "20", "--redis", redis_url,
         "--database", database],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    lines = dict(re.findall(r"^(\w+)\s+([\d.]+) µs wall", run.stdout, flags=re.M))
    assert set(lines) == {"wrote", "measure", "replica_allowed"}, run.stdout
    assert all(float(micros) > 0 for micros in lines.values())
