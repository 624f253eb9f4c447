"""A watchdog that logs every web request still running after a bound, with its route and id.

A Python thread cannot be killed, so this only tells: a request older than
``FACEDOWN_REQUEST_WATCHDOG_SECONDS`` is logged once (``facedown.watchdog``, a warning) with its
route name (or its method and path before the URL resolved), its request id and its age. What
ends a hung request is the database's timeouts (core/postgresql/session.py), Redis's socket
timeouts and, for a process stuck for good, the server's own worker timeout (gunicorn's
``timeout``; granian's workers are restarted by ``WEB_WORKER_LIFETIME``).

The observability middleware calls ``enter`` and ``leave`` around each synchronous request (a
dictionary entry under a lock each); one daemon thread per process looks every half bound.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest

from observability import request_id
from observability.routes import route_name

log = logging.getLogger("facedown.watchdog")


@dataclass
class _Running:
    request: HttpRequest
    request_id: str
    started: float
    told: bool = False


class Watchdog:
    """Requests in flight in one process; ``look`` logs those older than ``bound`` seconds."""

    def __init__(self, bound: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.bound = bound
        self.clock = clock
        self.running: dict[int, _Running] = {}
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.pid = 0

    def enter(self, request: HttpRequest, request_id: str) -> int:
        key = id(request)
        with self.lock:
            self.running[key] = _Running(request, request_id, self.clock())
        return key

    def leave(self, key: int) -> None:
        with self.lock:
            self.running.pop(key, None)

    def look(self) -> list[tuple[str, str, float]]:
        """Log each request older than the bound, once; returns (route, id, age) of those."""
        now = self.clock()
        with self.lock:
            late = [r for r in self.running.values() if not r.told and now - r.started > self.bound]
            for running in late:
                running.told = True
        found = []
        for running in late:
            route = route_name(running.request)
            if route == "unmatched":
                route = f"{running.request.method} {running.request.path_info}"
            age = now - running.started
            # Logged under the request's own id, as every line the request itself logs.
            token = request_id.activate(running.request_id)
            try:
                log.warning(
                    "request still running after %.1f s: %s",
                    age,
                    route,
                    extra={"route": route, "age_s": round(age, 1)},
                )
            finally:
                request_id.deactivate(token)
            found.append((route, running.request_id, age))
        return found

    def watch(self) -> None:
        """Start this process's looking thread, once (again in a forked child)."""
        if self.thread is not None and self.pid == os.getpid():
            return
        with self.lock:
            if self.thread is not None and self.pid == os.getpid():
                return
            self.pid = os.getpid()
            self.thread = threading.Thread(target=self._run, name="request-watchdog", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(max(self.bound / 2, 0.5))
            try:
                self.look()
            except Exception:  # the watchdog must outlive anything it meets
                log.exception("the request watchdog failed to look")


_watchdog: list[Watchdog] = []


def watchdog() -> Watchdog | None:
    """This process's watchdog, or None when ``FACEDOWN_REQUEST_WATCHDOG_SECONDS`` is 0."""
    bound = settings.FACEDOWN_REQUEST_WATCHDOG_SECONDS
    if bound <= 0:
        return None
    if not _watchdog or _watchdog[0].bound != bound:
        _watchdog[:] = [Watchdog(bound)]
    return _watchdog[0]
