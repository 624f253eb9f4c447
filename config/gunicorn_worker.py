"""gunicorn's ``gthread`` worker, accepting a new connection only while a thread is free.

A ``gthread`` worker accepts in its main thread even while every request thread is busy, so a
busy worker keeps taking connections, and each keep-alive connection stays with the worker
that accepted it: 16 players' connections were measured spread 536 / 39 / 39 / 0 (CPU ticks)
over four workers, one worker doing all the work while three idled
(docs/benchmarks-history.md). This worker stops listening while all its threads are busy; an
idle worker then accepts instead, as ``sync`` workers do, while keep-alive still works.

It also tells the arbiter it is alive at most once a second: gunicorn's loop does it on every
turn (a ``utime`` system call per request at load, ≈ 0.6% of a loaded worker's samples), for
an arbiter that only checks it against ``timeout`` (30 s).
"""

from __future__ import annotations

import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

#: Seconds between two signs of life to the arbiter (or a quarter of its timeout, if shorter).
NOTIFY_EVERY = 1.0


class BalancedThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn has no types
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight = 0  # requests handed to the thread pool and not finished yet
        self.notified = -NOTIFY_EVERY  # when the arbiter was last told (monotonic seconds)

    def notify(self) -> None:
        now = time.monotonic()
        if now - self.notified >= min(NOTIFY_EVERY, self.timeout / 4):
            self.notified = now
            super().notify()

    def enqueue_req(self, conn: Any) -> None:
        self.in_flight += 1
        super().enqueue_req(conn)
        if self.in_flight >= self.cfg.threads:
            self.set_accept_enabled(False)

    def finish_request(self, conn: Any, fs: Any) -> None:
        self.in_flight -= 1
        super().finish_request(conn, fs)

    def set_accept_enabled(self, enabled: bool) -> None:
        # The run loop asks for accepting whenever it has connections to spare; it gets it only
        # with a thread free. Re-asked on every loop turn (each finished request wakes it).
        super().set_accept_enabled(enabled and self.in_flight < self.cfg.threads)
