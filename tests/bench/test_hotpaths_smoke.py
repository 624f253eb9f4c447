"""Smoke test of the in-process CPU benchmark (bench/hotpaths.py) at a tiny size, so every path
it measures keeps working. Its own database (the test database's name + ``_hotpaths_smoke``)
and this run's Redis database, never the test database."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from bench.hotpaths import KINDS

ROOT = Path(__file__).resolve().parents[2]


def test_hotpaths_smoke(tmp_path: Path, redis_db: str) -> None:
    out = tmp_path / "hot.json"
    database = f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_hotpaths_smoke"
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "hotpaths.py"), "--repeats", "2",
         "--moves-matches", "1", "--reads", "8", "--db", database, "--redis-db", redis_db,
         "--json", str(out)],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(out.read_text())
    for kind in KINDS:
        assert len(results[kind]) == 2 and all(us > 0 for us in results[kind]), kind
        assert f"  {kind} " in run.stdout


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_hotpaths_counts_instructions_under_callgrind(redis_db: str) -> None:
    """``--callgrind``: the script runs itself under valgrind and prints the instructions per
    request of the one path measured."""
    database = f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_hotpaths_cg"
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "hotpaths.py"), "--callgrind",
         "--only", "GET match 304", "--repeats", "1", "--moves-matches", "1", "--reads", "4",
         "--db", database, "--redis-db", redis_db],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    found = re.search(
        r"instructions per request, GET match 304: ([\d,]+) \((\d+) requests\)", run.stdout
    )
    assert found, run.stdout[-2000:]
    assert int(found.group(2)) == 4
    assert 100_000 < int(found.group(1).replace(",", "")) < 100_000_000
