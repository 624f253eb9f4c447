"""The embedded task runner: one worker thread in the web process, for the default run mode.

Without Redis there is no Celery; this thread runs the same job bodies (registered with
``games.dispatch`` by ``games.tasks``) one at a time, in ETA order, and runs the periodic sweep
itself. Serialising the work keeps SQLite to one background writer; its busy timeout queues it
behind request writers.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections
from django.utils import timezone

from games import dispatch

log = logging.getLogger(__name__)


class EmbeddedWorker:
    def __init__(self) -> None:
        #: Jobs run again every so many seconds (the sweep; apps add theirs).
        self.periodic: dict[str, Callable[[], float]] = {
            "overdue_sweep": lambda: settings.FACEDOWN_SWEEP_SECONDS
        }
        self._jobs: list[tuple[datetime, int, str, tuple[Any, ...]]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def submit(self, name: str, args: tuple[Any, ...], *, eta: datetime | None = None) -> None:
        with self._wake:
            heapq.heappush(self._jobs, (eta or timezone.now(), next(self._order), name, args))
            self._wake.notify()

    def start(self) -> None:
        if self.running:
            return
        self._stopping = False
        # The first sweep picks up whatever waited while no worker ran.
        for name in self.periodic:
            self.submit(name, ())
        self._thread = threading.Thread(target=self._loop, name="facedown-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None

    def _next_job(self) -> tuple[str, tuple[Any, ...]] | None:
        with self._wake:
            while not self._stopping:
                now = timezone.now()
                if self._jobs and self._jobs[0][0] <= now:
                    _, _, name, args = heapq.heappop(self._jobs)
                    return name, args
                wait = (self._jobs[0][0] - now).total_seconds() if self._jobs else None
                self._wake.wait(timeout=wait)
            return None

    def _loop(self) -> None:
        try:
            while (job := self._next_job()) is not None:
                name, args = job
                close_old_connections()
                try:
                    dispatch.job(name)(*args)
                except Exception:
                    log.exception("embedded job %s%r failed", name, args)
                if name in self.periodic:
                    delay = timedelta(seconds=self.periodic[name]())
                    self.submit(name, (), eta=timezone.now() + delay)
        finally:
            connections.close_all()


worker = EmbeddedWorker()
dispatch.runner_register("embedded", lambda name, args, eta: worker.submit(name, args, eta=eta))
