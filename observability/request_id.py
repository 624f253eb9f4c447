"""The request id: one per web request, on every log line it causes, in its response header
and in every Celery task it enqueues.

``X-Request-ID`` from the client is believed only when reverse proxies we run stand in front
(``FACEDOWN_TRUSTED_PROXY_HOPS`` > 0: the proxy sets or overwrites it) and when it is
well-formed; otherwise the server makes one. The id lives in a context variable, so each
gunicorn thread and each task sees its own; the log record factory stamps it on every record
(and a handler filter on any record made before the app started).
"""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar, Token
from typing import Any

from django.conf import settings

HEADER = "X-Request-ID"
META_KEY = "HTTP_X_REQUEST_ID"
#: The Celery message header that carries it into a task.
TASK_HEADER = "facedown_request_id"

# Letters, digits and a few separators: safe in a header, a log line and a JSON string.
_WELL_FORMED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+=-]{0,127}")

_current: ContextVar[str | None] = ContextVar("facedown_request_id", default=None)


def current() -> str | None:
    return _current.get()


def activate(request_id: str | None) -> Token[str | None]:
    return _current.set(request_id)


def deactivate(token: Token[str | None]) -> None:
    _current.reset(token)


def new() -> str:
    return uuid.uuid4().hex


def well_formed(value: str) -> bool:
    return _WELL_FORMED.fullmatch(value) is not None


def from_request(meta: Any) -> str:
    """The id of a request with environ ``meta``: the trusted proxy's, or a new one."""
    if int(getattr(settings, "FACEDOWN_TRUSTED_PROXY_HOPS", 0)) > 0:
        given = str(meta.get(META_KEY) or "")
        if well_formed(given):
            return given
    return new()


def record_factory_install() -> None:
    """Stamp every log record with the current request id when it is made, whatever handler
    (or test's capture) later reads it. Idempotent."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "facedown_request_id", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        record.request_id = _current.get() or "-"
        return record

    factory.facedown_request_id = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


class RequestIdFilter(logging.Filter):
    """Puts ``record.request_id`` on every record ("-" outside a request or task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current.get() or "-"
        return True
