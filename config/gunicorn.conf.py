"""Gunicorn, the production web server: ``gunicorn -c config/gunicorn.conf.py config.wsgi``.

Every setting can be changed from the environment (a command-line flag still wins):

``GUNICORN_BIND`` (``0.0.0.0:8000``), ``WEB_CONCURRENCY`` (worker processes; default: one per
core, at least 2), ``GUNICORN_WORKER_CLASS`` (``gthread`` that accepts only with a thread
free, ``config/gunicorn_worker.py``; gunicorn's ``gthread`` and ``sync`` also work),
``GUNICORN_THREADS`` (threads per gthread worker, 1), ``GUNICORN_KEEPALIVE`` (seconds an idle
keep-alive connection is kept, 5), ``GUNICORN_MAX_REQUESTS`` (recycle a worker after this many
requests, 0 = never), ``GUNICORN_TIMEOUT`` (30).

Why these defaults (docs/benchmarks-history.md has the measurements): the request path is CPU-bound
Python plus a few short PostgreSQL round trips (the throttles no longer add one per request), so
one single-threaded process per core keeps the cores busy: two per core spent more CPU per move
for fewer moves, the processes taking the cores from each other. Two threads in one process were
slower, with twice the median latency: the threads share one GIL, and a thread holding a match's
row lock waits for it. ``gthread`` speaks HTTP/1.1
keep-alive (``sync`` closes every connection), which saves a TCP handshake per request for
clients that poll. The application is preloaded: workers share its pages copy-on-write and start
at once; no database connection is opened before the fork (Django connects lazily).

Database connections are persistent (``DB_CONN_MAX_AGE``, seconds): one per worker thread, so
PostgreSQL needs ``max_connections`` >= workers x threads + the Celery worker + headroom.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = _int("WEB_CONCURRENCY", max(2, os.cpu_count() or 1))
# gthread, accepting only with a thread free (config/gunicorn_worker.py).
_BALANCED = "config.gunicorn_worker.BalancedThreadWorker"
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", _BALANCED)
threads = _int("GUNICORN_THREADS", 1)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = 20
max_requests = _int("GUNICORN_MAX_REQUESTS", 0)
max_requests_jitter = max_requests // 10
preload_app = True
backlog = 2048
# Access logs cost CPU on every request; a reverse proxy usually keeps them. Errors still go
# to stderr.
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "warning")
proc_name = "facedown-web"
# Django alone decides whether X-Forwarded-Proto is believed, by FACEDOWN_TRUSTED_PROXY_HOPS
# (config/settings.py). gunicorn's own rule would believe any client on 127.0.0.1.
secure_scheme_headers: dict[str, str] = {}

# --- Metrics: prometheus-client's multi-process mode (docs/observability.md) ---
# Every worker process writes its counters to files in PROMETHEUS_MULTIPROC_DIR and a scrape
# of /metrics adds them up. Set here, before the application (and prometheus_client) is
# loaded. Without the variable, a directory of this master's own under the temp directory.
os.environ.setdefault(
    "PROMETHEUS_MULTIPROC_DIR",
    os.path.join(tempfile.gettempdir(), f"facedown-metrics-{os.getpid()}"),
)


def on_starting(server: object) -> None:
    """Refuse to start with a configuration several machines could not share (config/startup.py):
    the master exits before it binds or forks, with the missing settings named. Then empty the
    metrics directory, once per start (not on a reload): files of a previous run would be
    counted again, and no worker has written to it yet."""
    from config.startup import refuse_to_start_wrong

    refuse_to_start_wrong("gunicorn")
    directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory, exist_ok=True)


def pre_fork(server: Any, worker: Any) -> None:
    """Everything the master has loaded (the preloaded application: Django, the URL
    patterns, the engines, every module) moves to the garbage collector's permanent generation
    before the fork (``gc.freeze``, Python's advice for a forking server). Those objects live
    as long as the process, yet each full collection in a worker visited all of them, stalling
    the request it ran in (docs/benchmarks-history.md). Frozen, a worker's
    collections visit only what it allocated itself, and they no longer write to the
    inherited pages, which stay shared with the master."""
    import gc

    gc.freeze()


def child_exit(server: Any, worker: Any) -> None:
    """A worker exited (recycled, killed, crashed): its live gauges stop counting; its
    counters stay, so totals never go backwards."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def post_worker_init(worker: Any) -> None:
    """A shorter GIL switch interval in each worker (``GUNICORN_SWITCH_INTERVAL_MS``, 1 ms;
    Python's default is 5), for deployments that run several threads per worker (measured
    with 2: 205 -> 235 moves/s, means of 3 and 5 runs). A worker's threads share one GIL: a
    thread whose answer came back from PostgreSQL waits for the other to let go of it, up to
    the interval, while it holds its match's row lock, and the other seat's move waits."""
    import sys

    sys.setswitchinterval(_int("GUNICORN_SWITCH_INTERVAL_MS", 1) / 1000)
