"""The restore drill (bench/restore_drill.py) at a small size: a base backup and the WAL archive
of a cluster of its own under two GOPS pairs' load, restored to a named restore point on a
fresh cluster, with Facedown started on it. Every finished match's transcript read through the
restored server verifies, every move acknowledged before the point is there with the client's
receipt digest, moves acknowledged after it are not all there (the recovery stopped at the
point), and the restored server takes a move.

The comparison of acknowledged and restored moves is also checked on its own: a lost move, a
changed receipt and a move no client was told of are each reported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.restore_drill import Figures, compare_moves

ROOT = Path(__file__).resolve().parents[2]
MATCH = "6f1c0d52-0c5e-4a57-9d0e-3b1e0f7c2a11"


def test_the_comparison_reports_a_lost_a_changed_and_an_unknown_move() -> None:
    accepted = [(MATCH, 1, 0, "d10"), (MATCH, 1, 1, "d11"), (MATCH, 2, 0, "d20")]
    at = [1.0, 2.0, 5.0]  # the third acknowledged after the point (3.0)
    figures = Figures()
    assert compare_moves([*accepted[:2], accepted[2]], accepted, at, 3.0, figures) == []
    assert (figures.moves_checked, figures.moves_after_point_present) == (2, 1)
    stored = [(MATCH, 1, 1, "changed"), (MATCH, 3, 1, "d31")]  # (1, 0) lost, (3, 1) unknown
    problems = compare_moves(stored, accepted, at, 3.0, Figures())
    assert problems == [
        f"lost: {(MATCH, 1, 0)} was acknowledged before the restore point",
        f"{(MATCH, 1, 1)}: the stored receipt digest differs from the client's",
        f"a stored move no client was told of: {(MATCH, 3, 1)}",
    ]


@pytest.mark.slow
def test_a_backup_under_load_restores_to_a_point_in_time(
    tmp_path: Path, record_property: Any
) -> None:
    out = tmp_path / "drill.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "restore_drill.py"),
         *("--pairs", "3", "--gops-cards", "9", "--workers", "1", "--threads", "2"),
         *("--warmup", "1", "--between", "0.5", "--after", "0.5", "--json", str(out))],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(out.read_text())
    assert figures["problems"] == []
    assert figures["matches_finished"] > 0
    assert figures["transcripts_verified"] == figures["matches_finished"]
    assert figures["moves_checked"] == figures["moves_before_point"] > 0
    assert figures["moves_after_point_absent"] > 0
    assert figures["backup_seconds"] > 0 and figures["restore_seconds"] > 0
    record_property(
        "timing",
        "restore drill: {total_seconds:.1f} s in all, backup {backup_seconds:.1f} s, "
        "restore {restore_seconds:.1f} s, {moves_checked} moves checked".format(**figures),
    )
