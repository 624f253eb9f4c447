"""The request id travels into every Celery task a request enqueues, and is logged there.

``before_task_publish`` (in the web process, while the request's context is current) writes
it into the message's headers; ``task_prerun`` (in the worker) makes it current for the
task's log lines and logs the task's start; ``task_postrun`` logs its end and clears it. A
task enqueued by another task (a sweep's follow-ups) carries the id of the task that made it;
a task of the periodic sweep has none and gets its own.

The worker's log handlers are Celery's own (its format and level); ``after_setup_logger``
adds the request id filter to them, and the JSON formatter when ``LOG_FORMAT=json``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import signals
from django.conf import settings

from observability import request_id
from observability.logs import JsonFormatter

log = logging.getLogger("facedown.tasks")

_started: dict[str, tuple[float, Any]] = {}


def _headers_write(headers: dict[str, Any] | None = None, **_: Any) -> None:
    rid = request_id.current()
    if rid and headers is not None:
        headers[request_id.TASK_HEADER] = rid


def _task_id_of(task: Any) -> str | None:
    value = getattr(task.request, request_id.TASK_HEADER, None)
    if value is None:  # some protocol versions leave custom headers in ``headers``
        value = (getattr(task.request, "headers", None) or {}).get(request_id.TASK_HEADER)
    return str(value) if value and request_id.well_formed(str(value)) else None


def _task_start(task_id: str = "", task: Any = None, **_: Any) -> None:
    rid = _task_id_of(task) if task is not None else None
    token = request_id.activate(rid or request_id.new())
    _started[task_id] = (time.perf_counter(), token)
    log.info(
        "task %s started (request %s, task id %s)",
        getattr(task, "name", "?"),
        request_id.current(),
        task_id,
    )


def _task_end(task_id: str = "", task: Any = None, state: str | None = None, **_: Any) -> None:
    started = _started.pop(task_id, None)
    if started is None:
        return
    begun, token = started
    log.info(
        "task %s %s in %.1fms (request %s)",
        getattr(task, "name", "?"),
        (state or "done").lower(),
        (time.perf_counter() - begun) * 1000,
        request_id.current(),
    )
    try:
        request_id.deactivate(token)
    except ValueError:  # ended in another context than it started: clear it instead
        request_id.activate(None)


def _worker_logging(logger: logging.Logger | None = None, **_: Any) -> None:
    if logger is None:
        return
    json_lines = getattr(settings, "LOG_FORMAT", "text") == "json"
    for handler in logger.handlers:
        if not any(isinstance(f, request_id.RequestIdFilter) for f in handler.filters):
            handler.addFilter(request_id.RequestIdFilter())
        if json_lines:
            handler.setFormatter(JsonFormatter())
    # The task lines are INFO, like Celery's own "succeeded" lines at the worker's level.
    logging.getLogger("facedown.tasks").setLevel(logging.INFO)


def connect() -> None:
    signals.before_task_publish.connect(_headers_write, weak=False)
    signals.task_prerun.connect(_task_start, weak=False)
    signals.task_postrun.connect(_task_end, weak=False)
    signals.after_setup_logger.connect(_worker_logging, weak=False)
    signals.after_setup_task_logger.connect(_worker_logging, weak=False)
