"""The bot runner survives: an error in one match is handed back while the others finish; a
429 on connecting is waited out; SIGTERM in the middle of a move lets the move finish and
stops the ``facedown-bot`` process cleanly."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
from facedown_client import Bot, Client, SeatView, StreamItem, run
from facedown_client.types import Move

from tests.clients.house import match_against_house_bot

pytestmark = pytest.mark.usefixtures("transactional_db")
CLIENT_SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python" / "src"
SMALL = {"num_cards": 3}


class FailsIn(Bot):
    def __init__(self, broken: str) -> None:
        self.broken = broken

    def choose(self, view: SeatView) -> Move:
        if view.match_id == self.broken:
            raise RuntimeError("a bug in the bot")
        return min(view.legal_moves, key=lambda move: move["card"])


def test_an_error_in_one_of_three_matches_leaves_the_others_finished(
    registered: Callable[[], Client], caplog: pytest.LogCaptureFixture
) -> None:
    client = registered()
    matches = [match_against_house_bot(client, "gops", "random", SMALL) for _ in range(3)]
    broken = matches[1]
    with caplog.at_level(logging.ERROR, logger="facedown_client.bot"):
        report = run(client, FailsIn(broken), max_matches=3, timeout=40, handle_signals=False)

    assert not report.timed_out and sorted(report.finished) == sorted(matches)
    assert report.failed == {broken: "RuntimeError: a bug in the bot"}
    assert report.resigned == [broken]
    assert any(broken in record.getMessage() for record in caplog.records)
    for match_id in matches:
        final = client.matches.get(match_id)
        assert final["status"] == "finished"
        played = len(final["view"]["history"])
        assert played == (0 if match_id == broken else 3), (match_id, played)


def test_leave_hands_the_failed_match_to_the_clock(registered: Callable[[], Client]) -> None:
    client = registered()
    good, broken = (match_against_house_bot(client, "gops", "random", SMALL) for _ in range(2))
    report = run(
        client, FailsIn(broken), max_matches=1, timeout=30, on_error="leave", handle_signals=False
    )
    assert report.finished == [good] and list(report.failed) == [broken]
    assert report.resigned == [] and client.matches.get(broken)["status"] == "active"


def test_past_max_concurrent_a_challenge_is_declined_later(
    registered: Callable[[], Client],
) -> None:
    client, challenger = registered(), registered()
    held = match_against_house_bot(client, "gops", "random", SMALL)
    name = client.account.get()["username"]
    challenge = challenger.challenges.create("gops", to=name, options=SMALL)
    report = run(
        client, FailsIn(""), max_matches=1, max_concurrent=1, timeout=30, handle_signals=False
    )
    assert report.finished == [held] and report.declined == [challenge["id"]]
    assert challenger.challenges.get(challenge["id"])["decline_reason"] == "later"


def test_a_429_is_waited_out(registered: Callable[[], Client]) -> None:
    """The server allows a token 10 open streams and long-polls
    (FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN): with ten held, the runner's connection and a
    long-poll of the match's events are refused with 429 ``too_many_streams`` and a
    ``Retry-After``; both wait that long and go on once streams have closed."""
    client = registered()
    match_id = match_against_house_bot(client, "gops", "random", SMALL)
    held: list[Generator[StreamItem, None, None]] = []
    for _ in range(10):
        stream = client.account.stream(read_timeout=30)
        assert next(stream).type == "snapshot"
        held.append(stream)
    outcome: dict[str, Any] = {}
    started = time.monotonic()

    def poll() -> None:
        page = client.matches.events(match_id, wait=1)
        outcome.update(events=page, polled=time.monotonic() - started)

    runner = threading.Thread(
        target=lambda: outcome.update(
            report=run(client, FailsIn(""), max_matches=1, timeout=40, handle_signals=False)
        )
    )
    poller = threading.Thread(target=poll)
    try:
        runner.start()
        poller.start()
        time.sleep(0.5)
        held.pop().close()
        held.pop().close()
        poller.join(20)
        runner.join(45)
    finally:
        for stream in held:
            stream.close()
    report = outcome["report"]
    assert report.throttled >= 1 and report.finished == [match_id]
    assert time.monotonic() - started >= 4  # the server's Retry-After for too_many_streams: 5 s
    assert outcome["events"]["results"] and outcome["polled"] >= 4


SLOW_BOT = '''
import os, pathlib, time
from facedown_client import Bot


class Slow(Bot):
    """Says when it starts choosing, then takes its time: a signal arrives mid-move."""

    def choose(self, view):
        pathlib.Path(os.environ["CHOOSING"]).write_text(str(view.step))
        time.sleep(1.5)
        return min(view.legal_moves, key=lambda move: move["card"])
'''


def test_sigterm_mid_move_finishes_the_move_and_stops(
    registered: Callable[[], Client], server: str, tmp_path: Path
) -> None:
    client = registered()
    match_id = match_against_house_bot(client, "gops", "random", {"num_cards": 5})
    (tmp_path / "slow_bot.py").write_text(SLOW_BOT)
    choosing = tmp_path / "choosing"
    config = tmp_path / "bot.toml"
    config.write_text(f'url = "{server}"\non_stop = "leave"\n')
    env = os.environ | {
        "FACEDOWN_TOKEN": str(client.token),
        "CHOOSING": str(choosing),
        "PYTHONPATH": str(CLIENT_SOURCE),
    }
    command = [
        sys.executable,
        "-m",
        "facedown_client.cli",
        "slow_bot:Slow",
        "--config",
        str(config),
    ]
    program = subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 30
        while not choosing.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert choosing.exists(), "the bot never started its first move"
        first = int(choosing.read_text())
        program.send_signal(signal.SIGTERM)  # in the middle of choosing the first move
        stdout, stderr = program.communicate(timeout=15)
    finally:
        if program.poll() is None:
            program.kill()
            program.communicate()
    assert program.returncode == 0, stderr
    assert "sent 1 moves" in stdout and "stopped by SIGTERM" in stdout, stdout
    # The move being chosen was sent whole (its step resolved against the house bot), and
    # nothing after it: the match waits at the next step, left to the clock.
    deadline = time.monotonic() + 10
    while (match := client.matches.get(match_id))["step"] == first and time.monotonic() < deadline:
        time.sleep(0.05)
    assert match["status"] == "active" and match["step"] == first + 1
    assert len(match["view"]["history"]) == 1 and match["legal_moves"]
