"""Smoke test of the move ceiling benchmark (bench/move_ceiling.py): a real move captured from
the server's log on a cluster of its own, replayed by pgbench for a second at two client counts,
every transaction a new move (no unique key hit, none failed) with its WAL counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_move_ceiling_smoke(tmp_path: Path) -> None:
    out, script = tmp_path / "ceiling.json", tmp_path / "move.sql"
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "move_ceiling.py"),
         *("--clients", "1,2", "--seconds", "1", "--matches-per-client", "5"),
         *("--script", str(script), "--json", str(out))],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(out.read_text())
    # The locking read and the one writing statement, for each seat's move.
    assert result["statements_per_move"] == [2, 2]
    for level in result["levels"]:
        assert level["moves"] > 0 and level["failed"] == 0
        assert level["wal_bytes_per_move"] > 0 and level["postgres_cpu_ms_per_move"] > 0
    text = script.read_text()
    assert "FOR UPDATE OF s, m" in text and 'INSERT INTO "games_move"' in text
    assert "md5('fd-ceiling-' || :mi)::uuid" in text
