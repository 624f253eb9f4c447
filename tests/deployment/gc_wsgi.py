"""A WSGI application for tests/deployment/test_gc_freeze.py: answers with how many objects
the garbage collector of the worker that served it holds frozen (``gc.get_freeze_count``)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from typing import Any


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    body = str(gc.get_freeze_count()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
