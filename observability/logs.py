"""Log formats: one JSON object per line (``LOG_FORMAT=json``, for production) or plain text.

The JSON line holds the time (UTC, ISO 8601), level, logger, message, request id, the fields
passed with ``extra=`` (the access log's method, route, status, duration, user id) and the
formatted exception, if any. Nothing else of the record: a log call's arguments are already in
its message, and the services never log a move's payload (tests/observability checks that).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import orjson

# Every attribute a plain LogRecord has; anything else on a record came through ``extra=``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "request_id",
}

# Dates and dataclasses written by ``str()`` as the standard library's ``default=str`` wrote
# them (orjson would write its own forms); the JSON text differs only in spacing.
_AS_BEFORE = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack_info"] = self.formatStack(record.stack_info)
        try:  # orjson: a fifth of the standard library's time, and a line per request
            return orjson.dumps(entry, default=str, option=_AS_BEFORE).decode()
        except orjson.JSONEncodeError:  # an integer beyond 64 bits, a lone surrogate
            return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``time LEVEL logger [request id] message``: for a terminal (the embedded default)."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)
