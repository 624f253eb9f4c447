"""Smoke test of the clocks' sweep benchmark (bench/clocks.py) at a tiny size, so it keeps
working. It runs on a database of its own (the test database's name + ``_clocks_smoke``,
recreated and dropped by the script); the script itself checks that the sweep timed out both
seats of every overdue match and left none overdue."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_clocks_benchmark_smoke() -> None:
    database = f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_clocks_smoke"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "clocks.py"),
            *("--matches", "400", "--overdue", "40", "--db", database, "--drop"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "filled 400 active 2-player GOPS (fischer/byoyomi), 40 overdue" in run.stdout
    assert "sweep resolving 40 overdue steps (2 timeouts each)" in run.stdout
