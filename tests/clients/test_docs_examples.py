"""Every Python block of docs/programs.md and clients/python/README.md, and every file of
clients/python/examples/, run as a newcomer would: copied out into a file and run with
``python`` against the live server, its settings in the environment. An example cannot crash
unnoticed.

The line before a block says how it runs: ``<!-- example: person -->`` (the default: a person's
token in ``FACEDOWN_TOKEN``), ``<!-- example: bot-challenged -->`` (a bot account's token; a
person challenges it to a 3-card GOPS match and plays it; once that match is over the program
gets SIGINT and must stop cleanly, exit 0) or ``<!-- example: fragment -->`` (only compiled:
a block that is not a program). The examples' files are listed in ``EXAMPLES`` with their
set-up: a file missing there fails the test.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from facedown_client import Bot, Client, SeatView, run
from facedown_client.types import Move

from ladder.services.results import stalled_sweep
from tests.clients.conftest import PASSWORD
from tests.clients.house import match_against_house_bot

pytestmark = pytest.mark.usefixtures("transactional_db")

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"
DOCS = [ROOT / "docs" / "programs.md", CLIENT / "README.md"]
BLOCK = re.compile(
    r"(?:<!-- example: (?P<kind>[\w-]+) -->\n)?```python[^\n]*\n(?P<code>.*?)```", re.DOTALL
)
KINDS = {"person", "bot-challenged", "fragment"}
#: The examples' files: how each is set up, and its arguments.
EXAMPLES = {
    "pot_value_bot.py": ("house-match", []),
    "verify_match.py": ("finished-match", ["{match}"]),
    "ladder_bot.py": ("ladder-bot", ["gops"]),
}
SMALL = {"num_cards": 3}


@dataclass(frozen=True)
class Example:
    name: str
    kind: str
    code: str
    arguments: tuple[str, ...] = ()


def _examples() -> list[Example]:
    found: list[Example] = []
    for doc in DOCS:
        text = doc.read_text()
        for number, block in enumerate(BLOCK.finditer(text), 1):
            line = text[: block.start()].count("\n") + 1
            name = f"{doc.relative_to(ROOT)}:{line}#{number}"
            found.append(Example(name, block["kind"] or "person", block["code"]))
    for path in sorted((CLIENT / "examples").glob("*.py")):
        kind, arguments = EXAMPLES.get(path.name, ("unlisted", []))
        found.append(Example(str(path.relative_to(ROOT)), kind, path.read_text(), (*arguments,)))
    return found


def test_the_docs_have_their_blocks() -> None:
    """The harness finds the blocks it is meant to run (a changed fence would hide them)."""
    names = [example.name for example in _examples()]
    assert sum(name.startswith("docs/programs.md") for name in names) >= 1
    assert sum(name.startswith("clients/python/README.md") for name in names) >= 3
    assert sum(name.startswith("clients/python/examples/") for name in names) == len(EXAMPLES)


class Lowest(Bot):
    def choose(self, view: SeatView) -> Move:
        return min(view.legal_moves, key=lambda move: move["card"])


def _environment(client: Client, server: str, name: str) -> dict[str, str]:
    assert client.token
    return os.environ | {
        "FACEDOWN_URL": server,
        "FACEDOWN_TOKEN": client.token,
        "FACEDOWN_USER": name,
        "FACEDOWN_PASSWORD": PASSWORD,
        "FACEDOWN_MATCHES": "1",
        "PYTHONPATH": str(CLIENT / "src"),
    }


def _finished_match(client: Client) -> str:
    match_id = match_against_house_bot(client, "gops", "random", SMALL)
    report = run(client, Lowest(), max_matches=1, timeout=30, handle_signals=False)
    assert report.finished == [match_id]
    return match_id


@pytest.mark.parametrize("example", _examples(), ids=lambda example: example.name)
def test_the_example_runs(
    example: Example, registered: Callable[[], Client], server: str, tmp_path: Path
) -> None:
    assert example.kind in KINDS | {"house-match", "finished-match", "ladder-bot"}, (
        f"{example.name}: unknown set-up {example.kind!r} (a new example file goes in EXAMPLES)"
    )
    script = tmp_path / "example.py"
    script.write_text(example.code)
    if example.kind == "fragment":
        compile(example.code, example.name, "exec")
        return
    client = registered()
    name = client.account.get()["username"]
    values: dict[str, Any] = {}
    if example.kind == "house-match":
        values["match"] = match_against_house_bot(client, "gops", "random", SMALL)
    elif example.kind == "finished-match":
        values["match"] = _finished_match(client)
    elif example.kind in ("bot-challenged", "ladder-bot"):
        client.account.become_bot()
        client.login(name, PASSWORD, name="docs bot")
    opponent = _ladder_opponent(registered) if example.kind == "ladder-bot" else None
    command = [sys.executable, str(script), *(a.format(**values) for a in example.arguments)]
    environment = _environment(client, server, name)
    if example.kind != "bot-challenged":
        done = subprocess.run(
            command, env=environment, capture_output=True, text=True, timeout=60, cwd=tmp_path
        )
        assert done.returncode == 0, f"{example.name}:\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, done.stderr
        _check_outcome(example, client, values, done.stdout)
        if opponent is not None:
            opponent.join(30)
        return

    program = subprocess.Popen(
        command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        person = registered()
        challenge = person.challenges.create("gops", to=name, options=SMALL)
        outcome: dict[str, Any] = {}
        opponent = threading.Thread(
            target=lambda: outcome.update(
                report=run(person, Lowest(), max_matches=1, timeout=40, handle_signals=False)
            )
        )
        opponent.start()
        opponent.join(45)
        assert not outcome["report"].timed_out, f"{example.name}: the match did not finish"
        match_id = person.challenges.get(challenge["id"])["match_id"]
        final = client.matches.get(match_id)
        assert final["status"] == "finished" and final["seats"][1]["controlled_by"] == "player"
        assert len(final["view"]["history"]) == 3  # played to the end: nobody resigned
        program.send_signal(signal.SIGINT)
        stdout, stderr = program.communicate(timeout=20)
    finally:
        if program.poll() is None:
            program.kill()
            program.communicate()
    assert program.returncode == 0, f"{example.name}:\n{stdout}\n{stderr}"
    assert "Traceback" not in stderr and "Error" not in stderr, stderr  # no match failed


def _ladder_opponent(registered: Callable[[], Client]) -> threading.Thread:
    """Another bot account on the gops ladder, playing one match (the example's) in a thread:
    the server pairs the two once the example enters."""
    other = registered()
    name = other.account.get()["username"]
    other.account.become_bot()
    other.login(name, PASSWORD, name="ladder opponent")
    other.ladder.enter("gops", options=[SMALL])
    thread = threading.Thread(
        target=lambda: run(other, Lowest(), max_matches=1, timeout=45, handle_signals=False)
    )
    thread.start()
    return thread


def _check_outcome(example: Example, client: Client, values: dict[str, Any], output: str) -> None:
    """What each program's output must show: a match played to the end, receipts verified."""
    if example.kind == "ladder-bot":
        assert re.search(r"^finished 1 matches; ladder rating \d+$", output, re.MULTILINE), output
        stalled_sweep()  # the worker may not have recorded the match yet
        assert client.ladder.entry("gops")["played"] == 1
        return
    if example.kind == "finished-match":
        assert re.search(r"^(\d+)/\1 receipts verify$", output, re.MULTILINE), output
        return
    finished = client.matches.list(status="finished")["results"]
    assert len(finished) == 1, f"{example.name}: {output}"
    if example.kind == "house-match":
        assert [m["id"] for m in finished] == [values["match"]]
        assert re.search(r"finished 1 matches; (\d+)/\1 receipts verify", output), output
