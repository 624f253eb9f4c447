"""Smoke test of the streams benchmark (bench/streams.py): 20 connections, a few commits.

It runs its own uvicorn process on a database of its own (the test settings' database name +
``_streams_smoke``; this run's Redis database), never the test database, and checks that every event
reached every connection and that the figures are there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_streams_benchmark_smoke(tmp_path: Path, redis_db: str) -> None:
    out = tmp_path / "streams.json"
    db = f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_streams_smoke"
    run = subprocess.run(
        [
            sys.executable, str(ROOT / "bench" / "streams.py"), "-n", "20", "--commits", "4",
            "--gap", "0.05", "--db", db, "--redis-db", redis_db, "--json", str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(out.read_text())
    assert result["missing"] == 0
    assert result["deliveries"] == 20 * result["events"] and result["events"] >= 4
    assert result["latency_ms_p99"] >= result["latency_ms_median"] > 0
