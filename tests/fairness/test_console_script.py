"""``facedown-verify``: the verifier's console script ([project.scripts]), as `pip install`
puts it next to the interpreter, run outside the checkout on a real transcript."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fairness.helpers import audit, finished_match

pytestmark = pytest.mark.django_db
SCRIPT = Path(sys.executable).parent / "facedown-verify"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    return subprocess.run(
        [str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_the_console_script_verifies_a_transcript(tmp_path):
    assert SCRIPT.exists(), f"{SCRIPT} is missing: install the project (pip install -e .)"
    match_id, players = finished_match("gops", 2, {"num_cards": 4})
    transcript = audit(players[0], match_id)
    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(transcript))
    key = players[0].get("/fairness/key").json()["public_key"]

    ok = run(str(path), "--public-key", key, cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("OK")

    transcript["seed"] = "00" * 32
    path.write_text(json.dumps(transcript))
    failed = run(str(path), "--public-key", key, cwd=tmp_path)
    assert failed.returncode == 1 and failed.stdout.startswith("FAILED")
    assert "facedown-verify" in run("--help", cwd=tmp_path).stdout
