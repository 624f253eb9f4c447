"""The production web server: ``python -m config.web`` (granian serving ``config.wsgi``).

granian parses HTTP and manages connections in Rust; Python runs only the application. Against
gunicorn (``config/gunicorn.conf.py``, still supported) it costs less web CPU per move and
serves more moves per second (docs/benchmarks-history.md, "The web server"). Every setting can
be changed from the environment:

``WEB_BIND`` (``0.0.0.0:8000``, or ``unix:PATH``), ``WEB_CONCURRENCY`` (worker processes;
default one per core, at least 2), ``WEB_THREADS`` (Python threads per worker, 1),
``WEB_GRACEFUL_TIMEOUT`` (seconds a stopping worker may finish its requests, 20),
``WEB_WORKER_LIFETIME`` (recycle each worker after this many seconds, 0 = never, else at least
60), ``WEB_WORKER_MAX_RSS`` (recycle a worker whose memory exceeds this many MiB, 0 = never),
``WEB_BACKLOG`` (2048), ``WEB_SWITCH_INTERVAL_MS`` (1), ``WEB_HEADER_READ_TIMEOUT`` (seconds a
connection may take to send a request's headers before it is closed, 10). Where ``WEB_BIND``,
``WEB_THREADS`` or ``WEB_SWITCH_INTERVAL_MS`` is unset, gunicorn's name for it
(``GUNICORN_BIND``, ...) counts, so an existing deployment keeps its address and threads.

What the process does before it serves, as the gunicorn configuration did: it loads the
application once (workers are forked from it and share its pages), refuses to start with a
configuration several machines could not share (``config/startup.py``), empties the metrics
directory of a previous run (``PROMETHEUS_MULTIPROC_DIR``: every worker writes its counters
there and a scrape adds them up), freezes what it loaded out of the garbage collector's sight
(``gc.freeze``: a worker's full collections visit only its own objects) and sets a 1 ms GIL
switch interval for deployments with several threads per worker. A worker that dies is
replaced (granian stops the whole server when the same worker dies again within 5.5 s: a
crash loop). A worker that serves more than its share sheds keep-alive connections
(``config/web_balance.py``; ``WEB_BALANCE=0`` turns that off). No database connection is
opened before the fork (Django connects lazily).
"""

from __future__ import annotations

import gc
import importlib
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from config.web_balance import Balance

APPLICATION = "config.wsgi:application"


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


@dataclass(frozen=True)
class WebSettings:
    host: str
    port: int
    uds: str | None  # a Unix socket's path (``unix:PATH``), instead of host and port
    workers: int
    threads: int
    graceful_timeout: int
    worker_lifetime: int | None
    worker_max_rss: int | None
    backlog: int
    header_read_timeout: int = 10


def settings_from_environment() -> WebSettings:
    bind = os.environ.get("WEB_BIND") or os.environ.get("GUNICORN_BIND") or "0.0.0.0:8000"
    uds = bind.removeprefix("unix:") if bind.startswith("unix:") else None
    host, _, port = ("", "", "8000") if uds else bind.rpartition(":")
    lifetime = _int("WEB_WORKER_LIFETIME", 0)
    max_rss = _int("WEB_WORKER_MAX_RSS", 0)
    return WebSettings(
        host=host.strip("[]") or "0.0.0.0",
        port=int(port),
        uds=uds,
        workers=_int("WEB_CONCURRENCY", max(2, os.cpu_count() or 1)),
        # gunicorn's names still count where the new ones are unset (existing deployments).
        threads=_int("WEB_THREADS", _int("GUNICORN_THREADS", 1)),
        graceful_timeout=_int("WEB_GRACEFUL_TIMEOUT", 20),
        worker_lifetime=lifetime or None,
        worker_max_rss=max_rss or None,
        backlog=_int("WEB_BACKLOG", 2048),
        header_read_timeout=max(1, _int("WEB_HEADER_READ_TIMEOUT", 10)),
    )


class Served:
    """The application as the workers serve it: a WSGI middleware, so granian's own glue runs
    unchanged. granian starts every request's ``environ`` from a copy of the process's
    environment, which would put ``DATABASE_URL``, the secret key's variables and the rest into
    ``request.META`` (and from there into error reports), and a variable such as ``HTTP_PROXY``
    would read as a request header: each variable of the process is taken out again unless the
    request set that key to a value of its own. A Django response that holds its whole body is
    sent in one piece, closed first (Django's ``request_finished``): granian's iterator path
    hands the body back and forth between its thread and Python. granian's access log is not
    offered: Django's (``facedown.access``) logs every request."""

    def __init__(
        self, application: Callable[..., Any], process: dict[str, str], balance: Balance | None
    ) -> None:
        self.application = application
        self.process = process
        self.balance = balance

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        for key, value in self.process.items():
            if environ.get(key) == value:
                del environ[key]
        balance = self.balance
        if balance is not None:
            started = time.perf_counter()
            answer = start_response

            def start_response(
                status: str, headers: list[tuple[str, str]], exc_info: Any = None
            ) -> Any:
                if balance.answered(time.perf_counter() - started):
                    headers = [*headers, ("Connection", "close")]
                return answer(status, headers, exc_info)

        body = self.application(environ, start_response)
        if getattr(body, "streaming", True) is False:
            try:
                content = b"".join(body)
            finally:
                body.close()
            return [content]
        return body


#: What ``served`` builds in each worker: the application's path and the workers' shared request
#: counts (config/web_balance.py); set by ``main`` before the fork.
_serving: tuple[str, Balance | None] = (APPLICATION, None)


def served() -> Served:
    """granian's application factory (its documented ``factory`` option), called in each worker
    before its threads serve."""
    application, balance = _serving
    module, _, name = application.partition(":")
    if balance is not None:
        balance.claim()  # once per worker, before its threads serve
    # The variables granian copies into every environ: the worker's, as it starts.
    process = dict(os.environ)
    return Served(getattr(importlib.import_module(module), name or "app"), process, balance)


def _metrics_directory() -> str:
    # Before prometheus_client is imported (with the application): it reads the variable then.
    return os.environ.setdefault(
        "PROMETHEUS_MULTIPROC_DIR",
        os.path.join(tempfile.gettempdir(), f"facedown-metrics-{os.getpid()}"),
    )


def _empty(directory: str) -> None:
    # Files of a previous run would be counted again; no worker has written yet.
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory, exist_ok=True)


def build_server(settings: WebSettings) -> Any:
    """granian serving ``served()``, the application ``main`` chose, in each worker."""
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings
    from granian.log import LogLevels
    from granian.server import Server

    return Server(
        "config.web:served",
        factory=True,
        address=settings.host,
        port=settings.port,
        uds=Path(settings.uds) if settings.uds else None,
        interface=Interfaces.WSGI,
        workers=settings.workers,
        blocking_threads=settings.threads,
        http=HTTPModes.http1,  # behind a proxy: HTTP/1.1 keep-alive
        websockets=False,
        backlog=settings.backlog,
        # A client that sends its headers slowly (or half of them) holds a connection only
        # this long (granian's own default is 30 s).
        http1_settings=HTTP1Settings(header_read_timeout=settings.header_read_timeout * 1000),
        log_level=LogLevels.warning,
        respawn_failed_workers=True,
        respawn_interval=1.0,
        workers_lifetime=settings.worker_lifetime,
        workers_max_rss=settings.worker_max_rss,
        workers_kill_timeout=settings.graceful_timeout,
        process_name="facedown-web",
    )


def main(argv: list[str] | None = None) -> None:
    """``python -m config.web [module:application]``: the Django application by default."""
    args = sys.argv[1:] if argv is None else argv
    application = args[0] if args else APPLICATION
    settings = settings_from_environment()
    metrics = _metrics_directory()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.startup import refuse_to_start_wrong

    refuse_to_start_wrong("web")
    _empty(metrics)
    # Loaded once, before the fork: the workers share its pages.
    importlib.import_module(application.partition(":")[0])

    # The workers must be forked from this process (granian forks by default on Linux): they
    # inherit the loaded application and the shared counts made here.
    multiprocessing.set_start_method("fork", force=True)
    balance = None
    if settings.workers > 1 and os.environ.get("WEB_BALANCE", "1") != "0":
        balance = Balance(settings.workers)
    global _serving
    _serving = (application, balance)
    switch_ms = _int("WEB_SWITCH_INTERVAL_MS", _int("GUNICORN_SWITCH_INTERVAL_MS", 1))
    sys.setswitchinterval(switch_ms / 1000)
    gc.freeze()
    build_server(settings).serve()


if __name__ == "__main__":
    # Run as ``config.web``, not ``__main__``: the workers' factory (``config.web:served``)
    # reads what ``main`` prepared in that module.
    from config.web import main as main_of_the_module

    main_of_the_module()
