"""The production web server: ``python -m config.web`` (granian serving ``config.wsgi``).

granian parses HTTP and manages connections in Rust; Python runs only the application. Against
gunicorn (``config/gunicorn.conf.py``, still supported) on the same host, one process per core
each: ≈ 25% less web CPU per move and ≈ 20-35% more moves per second (docs/benchmarks.md, "The
web server"). Every setting can be changed from the environment:

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
#: The workers' shared request counts (config/web_balance.py), made before the fork.
_balance: Balance | None = None


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


def wsgi_callback(
    callback: Callable[..., Any], scope_opts: dict[str, Any], access_log_fmt: str | None = None
) -> Callable[[Any, dict[str, Any]], int]:
    """granian's WSGI glue without one thing: granian starts every request's ``environ`` from a
    copy of the process's environment, which would put ``DATABASE_URL``, the secret key's
    variables and the rest into ``request.META`` (and from there into error reports). Here the
    ``environ`` holds the WSGI and CGI keys and the request's own, as under gunicorn. granian's
    access log is not offered: Django's (``facedown.access``) logs every request."""
    from granian.wsgi import Response, ResponseIterWrap

    base: dict[str, Any] = {
        "GATEWAY_INTERFACE": "CGI/1.1",
        "SCRIPT_NAME": "",
        "SERVER_SOFTWARE": "Granian",
        "wsgi.errors": sys.stderr,
        "wsgi.input_terminated": True,
        "wsgi.multiprocess": True,
        "wsgi.multithread": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }

    balance = _balance
    if balance is not None:
        balance.claim()  # here: once per worker, before its threads serve

    def run(proto: Any, scope: dict[str, Any]) -> int:
        response = Response()  # type: ignore[no-untyped-call]
        started = time.perf_counter()
        body = callback(base | scope, response)
        if balance is not None and balance.answered(time.perf_counter() - started):
            response.headers.append(("Connection", "close"))
        if isinstance(body, list):
            proto.response_bytes(response.status, response.headers, b"".join(body))
        elif getattr(body, "streaming", True) is False:
            # A Django response that holds its whole body: sent in one piece, closed first
            # (Django's request_finished). granian's iterator path hands the body back and
            # forth between its thread and Python: ≈ 8 µs more per request.
            try:
                content = b"".join(body)
            finally:
                body.close()
            proto.response_bytes(response.status, response.headers, content)
        else:
            rows = ResponseIterWrap(body)  # type: ignore[no-untyped-call]
            proto.response_iter(response.status, response.headers, rows)
        return response.status

    return run


def _use_own_wsgi_glue() -> None:
    # The worker (forked from this process) looks the glue up in this module's globals when it
    # starts; tests/deployment/test_web_server.py checks no process variable reaches a request.
    import granian.server
    import granian.server.mp

    if granian.server.Server is not granian.server.mp.MPServer:  # a free-threaded build
        raise RuntimeError("config/web.py serves with granian's worker processes only")

    granian.server.mp._wsgi_call_wrap = wsgi_callback  # type: ignore[attr-defined]


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


def build_server(settings: WebSettings, application: str = APPLICATION) -> Any:
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings
    from granian.log import LogLevels
    from granian.server import Server

    return Server(
        application,
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
    # inherit the loaded application, the shared counts and the WSGI glue installed here.
    multiprocessing.set_start_method("fork", force=True)
    global _balance
    if settings.workers > 1 and os.environ.get("WEB_BALANCE", "1") != "0":
        _balance = Balance(settings.workers)
    _use_own_wsgi_glue()
    switch_ms = _int("WEB_SWITCH_INTERVAL_MS", _int("GUNICORN_SWITCH_INTERVAL_MS", 1))
    sys.setswitchinterval(switch_ms / 1000)
    gc.freeze()
    build_server(settings, application).serve()


if __name__ == "__main__":
    main()
