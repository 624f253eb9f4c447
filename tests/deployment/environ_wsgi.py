"""A WSGI application for tests/deployment/test_web_server.py: answers with the ``environ`` it
was given (the JSON-serialisable part) and the body it read."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    received = environ["wsgi.input"].read(length).decode() if length else ""
    shown = {k: v for k, v in environ.items() if isinstance(v, (str, int, bool))}
    body = json.dumps({"environ": shown, "body": received}).encode()
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    )
    return [body]
