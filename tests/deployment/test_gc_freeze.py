"""gunicorn's workers start with what the master loaded frozen out of the garbage collector's
reach (config/gunicorn.conf.py, ``pre_fork``): a full collection in a worker then visits only
the worker's own objects. Real gunicorn with the production configuration."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
from pathlib import Path

from tests.faults.conftest import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _frozen(port: int) -> int | None:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/")
        return int(connection.getresponse().read())
    except OSError:
        return None


def test_a_worker_starts_with_the_preloaded_objects_frozen(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "WEB_CONCURRENCY": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "PYTHONPATH": str(ROOT),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "config/gunicorn.conf.py"),
         "--bind", f"127.0.0.1:{port}", "tests.deployment.gc_wsgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(lambda: _frozen(port) is not None, 20, "gunicorn to answer")
        frozen = _frozen(port)
    finally:
        server.terminate()
        server.wait(20)
    # The master's interpreter and gunicorn alone are tens of thousands of objects; without
    # the hook nothing is frozen.
    assert frozen is not None and frozen > 10_000, frozen
