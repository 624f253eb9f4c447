"""The README's run mode: SQLite, no Redis, bots and deadlines on the embedded worker thread.

Starts the real ``manage.py serve`` in a subprocess on a fresh SQLite file and plays a match
against a bot over HTTP; the bot must answer by itself.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.live.client import Stream

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(url: str, token: str | None = None, body: Any = None) -> Any:
    request = urllib.request.Request(url, method="POST" if body is not None else "GET")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(request, data=data, timeout=10) as response:
        return json.loads(response.read())


def test_embedded_default_plays_a_bot_match(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "FACEDOWN_")) and k not in {"DATABASE_URL", "REDIS_URL"}
    }
    env |= {
        "FACEDOWN_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # What scripts/run sets: the one-machine mode, which needs no other setting.
        "FACEDOWN_MODE": "embedded",
        "FACEDOWN_SWEEP_SECONDS": "0.5",
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT, timeout=120)
    port = _free_port()
    server = subprocess.Popen(
        [*manage, "serve", f"127.0.0.1:{port}"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    api = f"http://127.0.0.1:{port}/api/v1"
    try:
        for _ in range(100):
            try:
                _call(f"{api}/games")
                break
            except OSError:
                time.sleep(0.1)
        token = _call(
            f"{api}/accounts/register", body={"username": "solo", "password": "long-enough-pw"}
        )["token"]
        match = _call(
            f"{api}/matches",
            token,
            {
                "game": "gops",
                "seats": ["me", {"bot": "greedy"}],
                "options": {"num_cards": 4},
            },
        )
        # The in-process bus carries the match to a stream on the same server.
        stream = Stream(
            port, f"/api/v1/matches/{match['id']}/stream", {"Authorization": f"Token {token}"}
        )
        assert stream.events(1)[0].type == "snapshot"
        for _ in range(400):
            seen = _call(f"{api}/matches/{match['id']}", token)
            if seen["status"] != "active":
                break
            if seen["legal_moves"]:
                _call(
                    f"{api}/matches/{match['id']}/moves",
                    token,
                    {"step": seen["step"], "move": seen["legal_moves"][0]},
                )
            else:
                time.sleep(0.05)
        assert seen["status"] == "finished", seen
        assert seen["seats"][1]["bot"] == "greedy"
        streamed = [item.type for item in stream.quiet(1.0)]
        assert streamed[-1] == "match_finished" and "step_resolved" in streamed, streamed
        stream.close()
        # A logout ends the user's open stream through the in-process bus too.
        mine = Stream(port, "/api/v1/accounts/me/stream", {"Authorization": f"Token {token}"})
        assert mine.events(1)[0].type == "snapshot"
        _call(f"{api}/accounts/token/rotate", token, {"current_password": "long-enough-pw"})
        with pytest.raises(EOFError):
            mine.quiet(5.0)
        # The operator console is styled: static files are served with DEBUG off.
        base = f"http://127.0.0.1:{port}/static/admin/css/base.css"
        with urllib.request.urlopen(base, timeout=10) as response:
            assert response.status == 200
            assert response.headers["Content-Type"].startswith("text/css")
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=20)
    assert b"database is locked" not in errors
    assert (tmp_path / "facedown.sqlite3").exists()
