"""A Celery worker's own metrics: the moves its bots and deadlines record and the steps they
resolve are counted in the worker's processes, which no web scrape can see. With
``FACEDOWN_WORKER_METRICS_PORT`` set, the worker's main process serves them over plain HTTP
at ``FACEDOWN_WORKER_METRICS_ADDR`` (default 127.0.0.1: put it on an internal interface
only, it has no token). A prefork pool adds its processes up when the worker runs with its
own ``PROMETHEUS_MULTIPROC_DIR`` (emptied when the worker starts); a solo pool needs none.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import signals
from django.conf import settings
from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server

from observability.metrics import multiprocess_mode

log = logging.getLogger(__name__)


def _directory_empty(**_: Any) -> None:
    """Before the pool forks: files of an earlier run would be counted again."""
    if multiprocess_mode() and settings.FACEDOWN_WORKER_METRICS_PORT:
        directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
        for entry in os.listdir(directory):
            if entry.endswith(".db"):
                os.remove(os.path.join(directory, entry))


def _serve(**_: Any) -> None:
    port = int(settings.FACEDOWN_WORKER_METRICS_PORT)
    if not port:
        return
    registry: CollectorRegistry = REGISTRY
    if multiprocess_mode():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    start_http_server(port, addr=settings.FACEDOWN_WORKER_METRICS_ADDR, registry=registry)
    log.warning(
        "worker metrics at http://%s:%s/metrics", settings.FACEDOWN_WORKER_METRICS_ADDR, port
    )


def _process_gone(pid: int | None = None, **_: Any) -> None:
    if multiprocess_mode() and pid:
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def connect() -> None:
    signals.worker_init.connect(_directory_empty, weak=False)
    signals.worker_ready.connect(_serve, weak=False)
    signals.worker_process_shutdown.connect(_process_gone, weak=False)
