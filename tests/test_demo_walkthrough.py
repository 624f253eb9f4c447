"""The walk-through printed by ``manage.py demo`` (and so by ``scripts/run``) works on every run.

The printed shell lines are executed as written: ``export`` lines set variables, ``curl`` lines
are sent to the API through the test client, and every answer must be 2xx. Followed to its end,
it finishes the five-card match: its last step is forced (one card each), so it asks for no move
there (a move sent for it would be refused).
"""

from __future__ import annotations

import json
import re
import shlex
from io import StringIO
from typing import Any
from urllib.parse import urlsplit

from django.core.management import call_command
from rest_framework.test import APIClient


def _expand(word: str, env: dict[str, str]) -> str:
    return re.sub(r"\$(\w+)", lambda m: env[m.group(1)], word)


def _run_walkthrough(text: str) -> list[tuple[str, int, Any]]:
    """Run every ``export`` and ``curl`` line of ``text``; return (line, status, JSON answer)
    per curl."""
    env: dict[str, str] = {}
    answers: list[tuple[str, int, Any]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not (line.startswith("export ") or line.startswith("curl ")):
            continue
        words = shlex.split(line, comments=True)
        if words[0] == "export":
            for assignment in words[1:]:
                name, _, value = assignment.partition("=")
                env[name] = _expand(value, env)
            continue
        headers: dict[str, str] = {}
        body: str | None = None
        url = ""
        args = iter(words[1:])
        for word in args:
            if word == "-s":
                continue
            if word == "-H":
                name, _, value = _expand(next(args), env).partition(":")
                headers[name.strip()] = value.strip()
            elif word == "-d":
                body = _expand(next(args), env)
            else:
                url = _expand(word, env)
        client = APIClient()
        auth = headers.get("Authorization")
        extra = {"HTTP_AUTHORIZATION": auth} if auth else {}
        path = urlsplit(url).path
        if body is None:
            response = client.get(path, **extra)
        else:
            assert headers.get("Content-Type") == "application/json", line
            json.loads(body)  # the printed body is valid JSON
            response = client.post(path, body, content_type="application/json", **extra)
        answers.append((line, response.status_code, response.json()))
    return answers


def test_the_printed_walkthrough_works_on_every_run(db, settings):
    settings.FACEDOWN_TASK_RUNNER = "off"
    for run in range(3):
        out = StringIO()
        call_command("demo", stdout=out)
        answers = _run_walkthrough(out.getvalue())
        assert len(answers) == 13, answers
        failed = [(line, status) for line, status, _ in answers if not 200 <= status < 300]
        assert failed == [], f"run {run + 1}: {failed}"
        # the alice-bob match, read after the last printed move: over, step 5 played for them
        (last_read,) = [data for line, _, data in answers if line.endswith("$API/matches/$M")][1:]
        assert last_read["status"] == "finished", last_read
        assert last_read["result"] is not None, last_read
