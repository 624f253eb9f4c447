"""A WSGI application for tests/deployment/test_inline_worker.py: answers ``main`` when the
worker's main thread served the request, ``pool`` when a thread of its pool did, and echoes
the path (to tell pipelined requests apart); ``/sleep/S`` first sleeps S seconds."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    path = environ["PATH_INFO"]
    if path.startswith("/sleep/"):
        time.sleep(float(path.removeprefix("/sleep/")))
    where = "main" if threading.current_thread() is threading.main_thread() else "pool"
    body = f"{where} {path}".encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
