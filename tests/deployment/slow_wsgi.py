"""A WSGI application for tests/deployment/test_worker_balance.py: answers after 0.3 s with the
pid of the worker process that served it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    time.sleep(0.3)
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
