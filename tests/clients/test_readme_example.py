"""The 30-line bot of clients/python/README.md, copied out of the README and run as a newcomer
would (its settings in the environment): it challenges the house expert and plays the match to
the end, every receipt verified."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from facedown_client import Client

from tests.clients.conftest import PASSWORD

pytestmark = pytest.mark.usefixtures("transactional_db")
README = Path(__file__).resolve().parents[2] / "clients" / "python" / "README.md"


def test_the_readme_bot_plays_the_house_expert(
    registered: Callable[[], Client], server: str, tmp_path: Path
) -> None:
    text = README.read_text()
    (code,) = re.findall(r"## A bot in about 30 lines\n\n```python\n(.*?)```", text, re.DOTALL)
    assert len(code.splitlines()) <= 32
    script = tmp_path / "bot.py"
    script.write_text(code)
    client = registered()
    name = client.me()["username"]
    env = os.environ | {
        "FACEDOWN_URL": server,
        "FACEDOWN_USER": name,
        "FACEDOWN_PASSWORD": PASSWORD,
        "PYTHONPATH": str(README.parent / "src"),
    }
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"finished 1 matches, sent [1-9]\d* moves", done.stdout), done.stdout
    (played,) = [m for m in client.matches(status="finished")["results"]]
    assert [s["controlled_by"] for s in played["seats"]] == ["player", "bot"]
