"""A WSGI application for tests/deployment/test_inline_worker.py: answers ``main`` when the
worker's main thread served the request, ``pool`` when a thread of its pool did, and echoes
the path (to tell pipelined requests apart)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    where = "main" if threading.current_thread() is threading.main_thread() else "pool"
    body = f"{where} {environ['PATH_INFO']}".encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
