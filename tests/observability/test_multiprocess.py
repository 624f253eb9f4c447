"""Under the web server (config/web.py, and gunicorn with config/gunicorn.conf.py) the metrics
of every worker process add up: the counters live in PROMETHEUS_MULTIPROC_DIR, emptied when the
server starts, and survive a worker that is killed and replaced."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from tests.faults.processes import free_port, http_call, wait_until
from tests.observability.scrape import TOKEN, parse, value

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _workers(process: subprocess.Popen[bytes]) -> set[int]:
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text()
    return {int(pid) for pid in children.split()}


SERVERS = {
    "web": [sys.executable, "-m", "config.web"],
    "gunicorn": [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi",
                 "--threads", "1"],
}  # fmt: skip


@pytest.fixture(params=sorted(SERVERS))
def server(
    request: pytest.FixtureRequest, db: None, tmp_path: Path
) -> Iterator[tuple[int, subprocess.Popen[bytes], Path, Path]]:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_4242.db").write_bytes(b"left over from a previous run")
    db_conf = connection.settings_dict
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(
            ("DJANGO_", "FACEDOWN_", "DB_", "GUNICORN_", "WEB_", "PYTEST", "LOG_")
        )
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=f"postgres://{db_conf['USER']}@{db_conf['HOST']}:{db_conf['PORT']}/{db_conf['NAME']}",
        REDIS_URL="",
        FACEDOWN_MODE="embedded",  # only the embedded mode starts without Redis
        FACEDOWN_TASK_RUNNER="off",
        FACEDOWN_VAR_DIR=str(tmp_path / "var"),
        FACEDOWN_SIGNING_KEY="5a" * 32,
        FACEDOWN_METRICS_TOKEN=TOKEN,
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        LOG_FORMAT="json",
        PYTHONPATH=str(ROOT),
    )
    port = free_port()
    log_path = tmp_path / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        SERVERS[request.param],
        cwd=ROOT,
        env={**env, "WEB_BIND": f"127.0.0.1:{port}", "GUNICORN_BIND": f"127.0.0.1:{port}",
             "WEB_CONCURRENCY": "2"},
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_until(lambda: len(_workers(process)) == 2, 30, "both workers")
        wait_until(lambda: _answers(port), 30, request.param)
        yield port, process, metrics_dir, log_path
    finally:
        process.send_signal(signal.SIGINT)  # quick shutdown: nothing is in flight
        process.wait(timeout=20)
        log.close()


def _answers(port: int) -> bool:
    try:
        return http_call(port, "GET", "/healthz").status == 200
    except OSError:
        return False


def _scrape(port: int) -> Any:
    answer = http_call(port, "GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status == 200, answer.raw
    return parse(answer.raw.decode())


def _healthz_count(port: int) -> float:
    return value(
        _scrape(port), "facedown_http_requests_total", route="healthz", method="GET", status="200"
    )


def test_every_worker_counts_into_one_total(server: Any) -> None:
    port, process, metrics_dir, log_path = server
    assert not (metrics_dir / "counter_4242.db").exists()  # emptied at start
    before = _healthz_count(port)  # the readiness polls of the fixture
    answers = [http_call(port, "GET", "/healthz") for _ in range(30)]
    assert all(a.status == 200 for a in answers)
    # Whichever worker answers the scrape, it reads the sum of both.
    assert [_healthz_count(port) for _ in range(4)] == [before + 30] * 4

    victim = min(_workers(process))
    os.kill(victim, signal.SIGKILL)
    wait_until(lambda: len(_workers(process) - {victim}) == 2, 30, "a replacement worker")
    wait_until(lambda: _answers(port), 30, "the server again")
    # The dead worker's counts stay in the total (counters never go backwards).
    assert _healthz_count(port) >= before + 31

    # The access log lines are JSON with the request id the client received.
    rid = answers[0].headers["x-request-id"]
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    (access,) = [e for e in lines if e.get("request_id") == rid]
    assert access["logger"] == "facedown.access" and access["route"] == "healthz"
