"""Matches played over HTTP to the end, and their transcripts."""

from __future__ import annotations

import copy
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.players import Player, make_player, play_to_end, start_match

REPO = Path(__file__).resolve().parents[2]


def finished_match(
    game: str, count: int, options: dict[str, Any] | None = None, *, seed: int = 0
) -> tuple[str, list[Player]]:
    """A match played to the end with random legal moves; its id and players."""
    players = [make_player() for _ in range(count)]
    match_id = start_match(game, players, options=options or {})
    final = play_to_end(match_id, players, pick=random.Random(seed).choice)
    assert final["status"] == "finished", final
    return match_id, players


def audit(player: Player, match_id: str) -> dict[str, Any]:
    response = player.get(f"/matches/{match_id}/audit")
    assert response.status_code == 200, response.content
    return response.json()


def tampered(transcript: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(transcript)


def run_cli(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m games.verify`` in a fresh process with no Django settings at all."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    return subprocess.run(
        [sys.executable, "-m", "games.verify", str(path), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
