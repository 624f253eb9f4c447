"""PostgreSQL restarts under play: the server answers 2xx or ``503 service_unavailable`` with
``Retry-After`` (never a 500 page), recovers without being restarted, and no move is lost or
applied twice.

The test starts its own cluster (initdb + pg_ctl on a free port) and the production web server
(config/web.py) against it (two worker processes, two threads each, persistent connections),
then plays a GOPS match over HTTP as two clients would, through three faults:

1. ``pg_ctl restart -m fast`` between two requests: every worker thread holds a connection to
   the old server; the health check replaces it, so the next requests answer normally.
2. ``pg_ctl stop -m fast``: while it is down, a read, a move and a browser page (Django's own
   500 path, not DRF's) answer 503 problem+json with ``Retry-After``; then ``start``.
3. ``pg_ctl restart -m fast`` while a reader hammers the match and the players keep moving,
   re-sending a move whenever it was answered 503.

Then the stored moves are audited against the receipts the clients were given, and the whole
match is replayed through the engines by the transcript verifier.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.verify import verify_transcript
from tests.faults.processes import ROOT, Answer, PostgresCluster, WebServer, http_call

pytestmark = pytest.mark.slow

CARDS = 13
API = "/api/v1"
PROBLEM = "application/problem+json"
SIGNING_KEY = "5a" * 32


@pytest.fixture
def cluster() -> Iterator[PostgresCluster]:
    pg = PostgresCluster()
    try:
        pg.init()
        yield pg
    finally:
        pg.destroy()


def _env(cluster: PostgresCluster) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "FACEDOWN_", "DB_", "GUNICORN_", "PYTEST"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        # No Redis on purpose: only the embedded mode starts without one.
        FACEDOWN_MODE="embedded",
        DATABASE_URL=cluster.url,
        REDIS_URL="",  # the cache and throttles in process memory: this test is about PostgreSQL
        FACEDOWN_TASK_RUNNER="off",  # two human players: no bot, no deadline
        FACEDOWN_VAR_DIR=str(cluster.root / "var"),
        FACEDOWN_SIGNING_KEY=SIGNING_KEY,
        FACEDOWN_THROTTLE_ANON="100000/min",
        FACEDOWN_THROTTLE_USER="100000/min",
        FACEDOWN_THROTTLE_REGISTER="100000/min",
        DB_CONN_MAX_AGE="600",
        DB_CONNECT_TIMEOUT="2",
        PYTHONPATH=str(ROOT),
    )
    return env


@pytest.fixture
def server(cluster: PostgresCluster) -> Iterator[tuple[int, subprocess.Popen[bytes], Any]]:
    env = _env(cluster)
    cluster.migrate()  # the migrated template's copy: a second, where a migrate takes twenty
    web = WebServer(env=env, cwd=ROOT, log=cluster.root / "web.log", workers=2, threads=2)
    try:
        web.ready(30)
        yield web.port, web.process, web.log
    finally:
        web.stop(20)


def _workers(process: subprocess.Popen[bytes]) -> set[int]:
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text()
    return {int(pid) for pid in children.split()}


class Client:
    """A player over HTTP that records every answer and re-sends on 503 as told."""

    def __init__(self, port: int, answers: list[tuple[str, Answer]]) -> None:
        self.port = port
        self.answers = answers
        self.token = ""

    def call(self, method: str, path: str, body: Any = None) -> Answer:
        answer = http_call(self.port, method, API + path, body, token=self.token)
        self.answers.append((f"{method} {path}", answer))
        return answer

    def until_answered(self, method: str, path: str, body: Any = None) -> Answer:
        """Send again after each 503 (a short pause instead of the full Retry-After)."""
        for _ in range(400):
            answer = self.call(method, path, body)
            if answer.status != 503:
                return answer
            time.sleep(0.05)
        raise AssertionError(f"{method} {path}: still 503 after 20 s")

    def register(self, name: str) -> None:
        answer = self.until_answered(
            "POST", "/accounts/register", {"username": name, "password": f"{name}-pw-7f3k2q"}
        )
        assert answer.status == 201, answer.raw
        self.token = answer.body["token"]


def assert_unavailable(answer: Answer) -> None:
    assert answer.status == 503, (answer.status, answer.raw[:300])
    assert answer.headers["content-type"].startswith(PROBLEM)
    assert answer.body["code"] == "service_unavailable" and answer.body["status"] == 503
    assert int(answer.headers["retry-after"]) >= 1


def _browser_session(port: int, username: str, password: str) -> str:
    """Log in through the browser client's form; returns the session cookie."""
    page = http_call(port, "GET", "/login")
    csrf = re.search(r"csrftoken=([^;]+)", page.headers["set-cookie-all"]).group(1)  # type: ignore[union-attr]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.raw).group(1)  # type: ignore[union-attr]
    form = f"username={username}&password={password}&csrfmiddlewaretoken={token.decode()}"
    answer = http_call(port, "POST", "/login", form=form, headers={"Cookie": f"csrftoken={csrf}"})
    assert answer.status == 302, answer.raw[:500]
    session = re.search(r"sessionid=([^;]+)", answer.headers["set-cookie-all"]).group(1)  # type: ignore[union-attr]
    return f"csrftoken={csrf}; sessionid={session}"


def test_postgres_restarts_under_play(cluster: PostgresCluster, server: Any) -> None:
    port, web, log_path = server
    workers = _workers(web)
    assert len(workers) == 2
    answers: list[tuple[str, Answer]] = []
    alice, bob = Client(port, answers), Client(port, answers)
    alice.register("alice")
    bob.register("bob")
    created = alice.until_answered(
        "POST", "/matches", {"game": "gops", "seats": ["me", {"user": "bob"}],
                             "options": {"num_cards": CARDS}},
    )  # fmt: skip
    assert created.status == 201, created.raw
    match_id = created.body["id"]
    assert bob.until_answered("POST", f"/matches/{match_id}/join").status == 200
    cookie = _browser_session(port, "alice", "alice-pw-7f3k2q")

    receipts: dict[tuple[int, int], dict[str, Any]] = {}
    sent: dict[tuple[int, int], int] = {}

    def move(player: Client, seat: int, step: int) -> None:
        card = step if seat == 0 else CARDS + 1 - step
        answer = player.until_answered(
            "POST", f"/matches/{match_id}/moves", {"step": step, "move": {"card": card}}
        )
        # 202 accepted; 200 when an earlier, 503-answered attempt had committed after all
        assert answer.status in (200, 202), answer.raw
        assert (step, seat) not in receipts or receipts[(step, seat)] == answer.body["receipt"]
        receipts[(step, seat)] = answer.body["receipt"]
        sent[(step, seat)] = card

    def play(steps: range) -> None:
        for step in steps:
            move(alice, 0, step)
            move(bob, 1, step)

    # -- 1. a restart between two requests: stale connections are replaced, no answer fails
    play(range(1, 3))
    cluster.restart()
    before = len(answers)
    play(range(3, 5))
    assert all(a.status in (200, 202) for _, a in answers[before:]), answers[before:]

    # -- 2. down: a read, a move and a browser page answer 503 problem+json with Retry-After
    cluster.stop()
    assert_unavailable(alice.call("GET", f"/matches/{match_id}"))
    assert_unavailable(alice.call("POST", f"/matches/{match_id}/moves",
                                  {"step": 5, "move": {"card": 5}}))  # fmt: skip
    assert_unavailable(http_call(port, "GET", "/", headers={"Cookie": cookie}))
    cluster.start()
    assert http_call(port, "GET", "/", headers={"Cookie": cookie}).status == 200
    play(range(5, 7))

    # -- 3. a restart while a reader hammers the match and the players keep moving
    stop = threading.Event()
    reads: list[Answer] = []

    def reader() -> None:
        while not stop.is_set():
            reads.append(http_call(port, "GET", f"{API}/matches/{match_id}", token=bob.token))

    hammer = threading.Thread(target=reader)
    hammer.start()
    restarting = threading.Thread(target=cluster.restart)
    try:
        play(range(7, 8))
        restarting.start()
        play(range(8, CARDS))  # the last step is forced: one card left each
        restarting.join(timeout=60)
        time.sleep(0.2)
    finally:
        stop.set()
        hammer.join(timeout=30)
    assert not restarting.is_alive()

    # -- every answer was 2xx or a 503 problem+json with Retry-After; never a 500
    for request, answer in answers + [("GET (reader)", a) for a in reads]:
        if answer.status == 503:
            assert_unavailable(answer)
        else:
            assert 200 <= answer.status < 300, (request, answer.status, answer.raw[:300])
    unavailable = sum(a.status == 503 for _, a in answers) + sum(a.status == 503 for a in reads)
    print(f"\n{len(answers) + len(reads)} answers, {unavailable} of them 503")

    # -- the server recovered without a restart: same worker processes, normal answers
    final = alice.call("GET", f"/matches/{match_id}")
    assert final.status == 200 and final.body["status"] == "finished", final.raw
    assert _workers(web) == workers and web.poll() is None

    # -- no move lost, none applied twice: the stored moves are exactly the receipted ones
    stored = cluster.sql(
        f"SELECT step, seat, payload->>'card', source FROM games_move "
        f"WHERE match_id = '{match_id}' ORDER BY step, seat"
    )
    assert len(stored) == 2 * CARDS
    by_key = {(step, seat): (int(card), source) for step, seat, card, source in stored}
    assert len(by_key) == len(stored)
    for key, card in sent.items():
        assert by_key[key] == (card, "player"), key
    assert {key for key, (_, source) in by_key.items() if source != "player"} == {
        (CARDS, 0),
        (CARDS, 1),
    }  # the forced last step
    audit = alice.call("GET", f"/matches/{match_id}/audit")
    assert audit.status == 200, audit.raw
    steps = {entry["step"]: entry for entry in audit.body["steps"]}
    for (step, seat), receipt in receipts.items():
        assert steps[step]["receipts"][seat] == receipt, (step, seat)
    report = verify_transcript(audit.body)
    assert report.ok, report.verdict()
    assert report.steps_replayed == CARDS

    # -- no hidden move in the server's log, whatever it wrote about the outage
    log = log_path.read_text()
    assert "card" not in log, log[-2000:]
    assert "database unavailable, answered 503" in log
