"""A WSGI application for tests/deployment/test_web_server.py: keeps its worker's thread busy
for 20 ms per request (as a slow request would), then answers with the worker's pid."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    time.sleep(0.02)
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
