"""A newcomer's first run is quiet: the real ``manage.py serve`` (uvicorn on config.asgi, what
scripts/run starts) answers a first visit (pages, the client's files, /static/, the service
worker, the favicon, the manifest and its icons, the API docs) and a revisit (304s) without a
single warning on its terminal. File responses used to print Django's "StreamingHttpResponse
must consume synchronous iterators" on every load under ASGI."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.faults.processes import free_port

ROOT = Path(__file__).resolve().parents[1]
FIRST_VISIT = [
    "/login",
    "/signup",
    "/leaderboard",
    "/assets/app.css",
    "/assets/api.js",
    "/assets/manifest.webmanifest",
    "/assets/icons/icon-192.png",
    "/sw.js",
    "/favicon.ico",
    "/static/web/api.js",
    "/static/admin/css/base.css",
    "/api/docs/",
    "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css",
]
# Python's warnings print as "<file>:<line>: <Category>Warning: <message>".
WARNING = re.compile(r"\w*Warning: ")


def _get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, _lower(answer.headers.items()), answer.read()
    except urllib.error.HTTPError as answer:
        return answer.code, _lower(answer.headers.items()), answer.read()


def _lower(headers: list[tuple[str, str]]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers}


def test_a_first_visit_and_a_revisit_print_no_warning(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "FACEDOWN_", "PYTHONWARNINGS"))
        and k not in {"DATABASE_URL", "REDIS_URL"}
    }
    env |= {
        "FACEDOWN_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "FACEDOWN_MODE": "embedded",  # what scripts/run sets
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT, timeout=120)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [*manage, "serve", f"127.0.0.1:{port}"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for _ in range(200):
            try:
                _get(f"{base}/healthz")
                break
            except OSError:
                time.sleep(0.05)
        answers = {path: _get(base + path) for path in FIRST_VISIT}
        revisits = {
            path: _get(base + path, **{"If-Modified-Since": answers[path][1]["last-modified"]})
            for path in FIRST_VISIT
            if path.startswith(("/assets/", "/static/", "/sw.js", "/favicon"))
        }
        outside = _get(f"{base}/static/../manage.py")
    finally:
        server.send_signal(signal.SIGINT)
        terminal, _ = server.communicate(timeout=20)

    assert {path: status for path, (status, _, _) in answers.items()} == dict.fromkeys(
        FIRST_VISIT, 200
    ), terminal
    assert {path: status for path, (status, _, _) in revisits.items()} == dict.fromkeys(
        revisits, 304
    )
    css = answers["/static/admin/css/base.css"]
    assert css[1]["content-type"].startswith("text/css") and b"body" in css[2]
    assert css[1]["x-content-type-options"] == "nosniff"
    assert answers["/assets/manifest.webmanifest"][1]["content-type"] == (
        "application/manifest+json"
    )
    assert b"facedown-demo" in answers["/login"][2]  # the embedded mode names the demo players
    assert outside[0] == 404 and b"DJANGO_SETTINGS_MODULE" not in outside[2]
    assert not WARNING.search(terminal), terminal
