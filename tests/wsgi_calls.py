"""A request sent to a WSGI application as a WSGI server sends it, and its answer."""

from __future__ import annotations

import io
import json
import re
import sys
from dataclasses import dataclass
from typing import Any

from django.core.signals import request_finished, request_started
from django.db import close_old_connections

HEX = re.compile(r"[0-9a-f]+")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        return {key.lower(): value for key, value in self.headers.items()}.get(name.lower())

    def comparable(self) -> tuple[int, dict[str, str], Any]:
        headers = dict(self.headers)
        assert re.fullmatch(r"[0-9a-f]{32}", headers.pop("X-Request-ID")), self.headers
        length = headers.pop("Content-Length", None)  # Django's 400 for a bad host has none
        assert length is None or int(length) == len(self.body)
        return self.status, headers, _masked(json.loads(self.body) if self.body else None)


def _masked(document: Any) -> Any:
    """A receipt's salted digest, its signature and its time differ between two sendings."""
    if isinstance(document, dict):
        receipt = document.get("receipt")
        if isinstance(receipt, dict):
            for name in ("digest", "sig"):
                assert HEX.fullmatch(receipt[name]), receipt
                receipt[name] = "<hex>"
            receipt["at"] = "<time>"
    return document


def wsgi(
    app: Any, path: str, *, token: str | None, body: bytes, method: str = "POST", **headers: str
) -> Answer:
    """A request as a WSGI server sends it (a POST with a JSON body, unless told otherwise), with
    the test database's connection kept open (as Django's test client keeps it: closing it
    would end the test's transaction)."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "testserver",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if method == "POST":
        environ |= {"CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body))}
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Token {token}"
    environ["wsgi.url_scheme"] = headers.pop("SCHEME", "http")
    for name, value in headers.items():
        key = name.upper()
        plain = key in ("CONTENT_TYPE", "CONTENT_LENGTH", "QUERY_STRING", "SCRIPT_URL")
        environ[key if plain else f"HTTP_{key}"] = value
    status: list[str] = []
    sent: list[tuple[str, str]] = []

    def start_response(line: str, response_headers: list[tuple[str, str]], info: Any = None):
        status.append(line)
        sent.extend(response_headers)

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        result = app(environ, start_response)
        try:
            content = b"".join(result)
        finally:
            result.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return Answer(int(status[0].split()[0]), dict(sent), content)
