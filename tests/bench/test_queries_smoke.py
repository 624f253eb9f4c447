"""Smoke test of the query benchmark (bench/queries.py) at a tiny size, so it keeps working.

It runs on a database of its own (the test database's name + ``_queries_smoke``, dropped and
recreated by the script), never the test database.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_query_benchmark_smoke(tmp_path: Path) -> None:
    out = tmp_path / "queries.json"
    database = f"{settings.DATABASES['default']['NAME'].removeprefix('test_')}_queries_smoke"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "queries.py"),
            "--matches",
            "600",
            "--events-per-match",
            "5",
            "--runs",
            "1",
            "--db",
            database,
            "--json",
            str(out),
            "--drop",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["rows"]["games_match"] == 600
    results = {result["name"]: result for result in report["results"]}
    assert len(results) == 11
    for result in results.values():
        assert result["sql_median_ms"] > 0 and "Execution Time" in result["plan"]
    # The synthetic data exercises what each query looks for: match 86 has a stalled bot,
    # match 85 an overdue deadline, the heavy user a full first page.
    assert results["sweep: stalled bots"]["found"] == 1
    assert results["sweep: overdue deadline claim"]["found"] == 1
    assert results["list default, heavy user"]["found"] == 50
    assert results["events page (200)"]["found"] == 2  # (events, more)
    assert "| list default, heavy user |" in run.stdout
