"""The production web server (``python -m config.web``, granian) serving a given WSGI
application, for the tests of its settings."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.deployment.helpers import ROOT, clean_env
from tests.faults.conftest import free_port


@contextmanager
def web_server(
    app: str, tmp_path: Path, **env: str
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``python -m config.web app`` on a free port of 127.0.0.1, in the embedded mode (it needs
    no service to pass its start-up checks) with ``env`` on top; yields the port (the caller
    waits for an answer) and the process, and stops it on exit."""
    port = free_port()
    environment = clean_env(
        **{
            "FACEDOWN_MODE": "embedded",
            "FACEDOWN_TASK_RUNNER": "off",
            "FACEDOWN_VAR_DIR": str(tmp_path / "var"),
            "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
            "WEB_BIND": f"127.0.0.1:{port}",
            "WEB_CONCURRENCY": "1",
            **env,
        }
    )
    log = (tmp_path / f"web-{port}.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "config.web", app],
        cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        yield port, server
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(30)
        log.close()
