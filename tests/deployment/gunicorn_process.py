"""Real gunicorn with the production configuration (config/gunicorn.conf.py), for the tests of
its settings and worker class."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.faults.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def gunicorn(app: str, tmp_path: Path, **env: str) -> Iterator[int]:
    """gunicorn serving the WSGI application ``app`` ("module:name") on a free port of
    127.0.0.1 with the default worker class and ``env`` on top of this process's environment;
    yields the port (the caller waits for an answer), stops it on exit."""
    port = free_port()
    environment = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "PYTHONPATH": str(ROOT),
        **env,
    }
    environment.pop("GUNICORN_WORKER_CLASS", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "config/gunicorn.conf.py"),
         "--bind", f"127.0.0.1:{port}", app],
        cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield port
    finally:
        server.terminate()
        server.wait(20)
