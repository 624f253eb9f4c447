"""A newcomer's first run is quiet: ``scripts/run`` itself (migrate, the demo, then the real
``manage.py serve``: uvicorn on config.asgi) answers a first visit (pages, the client's files,
/static/, the service worker, the favicon, the manifest and its icons, the API docs) and a
revisit (304s) without a single warning on its terminal. File responses used to print Django's
"StreamingHttpResponse must consume synchronous iterators" on every load under ASGI; a client's
4xx printed Django's ``WARNING django.request``: it shows as its access-log line only.

It listens where it says: on 127.0.0.1 unless ``BIND`` says otherwise."""

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
# Python's warnings print as "<file>:<line>: <Category>Warning: <message>"; log records as
# "<time> WARNING <logger> …".
WARNING = re.compile(r"\w*Warning: | WARNING ")


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
    # the project's .venv as it is: scripts/run finds it installed and installs nothing
    env |= {"PYTHON": sys.executable, "VENV": sys.prefix, "PORT": str(port := free_port())}
    base = f"http://127.0.0.1:{port}"
    terminal_file = tmp_path / "terminal.txt"
    with terminal_file.open("w") as out:
        server = subprocess.Popen(
            [str(ROOT / "scripts" / "run")], env=env, cwd=ROOT, stdout=out, stderr=out
        )
    try:
        # migrate, the demo, then the server: up when it answers (a busy machine takes long)
        deadline = time.monotonic() + 300
        while server.poll() is None and time.monotonic() < deadline:
            try:
                _get(f"{base}/healthz")
                break
            except OSError:
                time.sleep(0.05)
        listening = _listening_on(port)
        answers = {path: _get(base + path) for path in FIRST_VISIT}
        revisits = {
            path: _get(base + path, **{"If-Modified-Since": answers[path][1]["last-modified"]})
            for path in FIRST_VISIT
            if path.startswith(("/assets/", "/static/", "/sw.js", "/favicon"))
        }
        outside = _get(f"{base}/static/../manage.py")
        bad_request = _get(f"{base}/api/v1/accounts/register")
        unknown = _get(f"{base}/api/v1/games/no-such-game")
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=20)
    terminal = terminal_file.read_text()

    assert f"http://127.0.0.1:{port}/" in terminal  # the demo's walk-through, printed
    assert listening == {"127.0.0.1"}, listening

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
    # a client's 4xx: its access-log line, and no warning
    assert (bad_request[0], unknown[0]) == (405, 404)
    assert re.search(r" INFO facedown\.access \[\S+\] GET \S+ 405 ", terminal), terminal
    assert re.search(r" INFO facedown\.access \[\S+\] GET \S+ 404 ", terminal), terminal
    assert not WARNING.search(terminal), terminal


def _listening_on(port: int) -> set[str]:
    """The addresses a TCP socket listens on at ``port`` (Linux's /proc/net/tcp{,6})."""
    found: set[str] = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        with open(table) as rows:
            for row in list(rows)[1:]:
                local, state = row.split()[1], row.split()[3]
                address, _, hex_port = local.partition(":")
                if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                    continue
                raw = bytes.fromhex(address)
                if width == 8:  # IPv4 in host (little-endian) order
                    found.add(".".join(str(b) for b in reversed(raw)))
                else:
                    found.add(raw.hex())
    return found
