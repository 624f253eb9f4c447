"""gunicorn's ``gthread`` worker, accepting a new connection only while a thread is free.

A ``gthread`` worker accepts in its main thread even while every request thread is busy, so a
busy worker keeps taking connections, and each keep-alive connection stays with the worker
that accepted it: 16 players' connections were measured spread 536 / 39 / 39 / 0 (CPU ticks)
over four workers, one worker doing all the work while three idled (docs/benchmarks.md). This
worker stops listening while all its threads are busy; an idle worker then accepts instead,
as ``sync`` workers do, while keep-alive still works.

With one thread (the default) the main thread serves each request itself, as a ``sync`` worker
does but keeping connections alive: gunicorn's pool would hand every request to its one thread
and the answer back (measured on a trivial application: 190-206 µs of the worker's CPU per
request through the pool, 106-123 µs served in the main thread). Like a ``sync`` worker's, a
request that runs longer than gunicorn's ``timeout`` then gets its worker restarted (the
heartbeat is the main thread's); nothing here runs that long (streams and long-polls are the
ASGI server's).
"""

from __future__ import annotations

import time
from concurrent import futures
from functools import partial
from selectors import EVENT_READ
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

#: Seconds a worker serving in its main thread waits for a new connection's first bytes.
FIRST_BYTES_WAIT = 0.05


class BalancedThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn has no types
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight = 0  # requests handed to the thread pool and not finished yet

    def enqueue_req(self, conn: Any) -> None:
        if self.cfg.threads == 1:
            return self._serve_inline(conn)
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

    # --- one thread: the request served by the main thread itself ---

    _inline_depth = 0

    def _serve_inline(self, conn: Any) -> None:
        """With one thread per worker the pool only hands each request to a second thread and
        back (a queue, a pipe, two wake-ups and GIL hand-overs per request): serve it here.

        A new connection's first bytes are waited for briefly (a client sends its request
        right after connecting), so the worker still takes a connection only to serve it at
        once and an idle worker takes the next; a client that has said nothing by then waits in
        the poller instead (gunicorn's own thread would have waited up to 5 s for it)."""
        fresh = not conn.initialized and not conn.data_ready
        if fresh and not conn.wait_for_data(FIRST_BYTES_WAIT):
            conn.sock.setblocking(False)
            conn.timeout = time.monotonic() + self.cfg.keepalive
            self.pending_conns.append(conn)
            self.poller.register(
                conn.sock, EVENT_READ, partial(self.on_pending_socket_readable, conn)
            )
            return
        if self._inline_depth:  # a pipelined request, re-enqueued by finish_request below
            self.method_queue.defer(self._serve_inline, conn)
            return
        self._inline_depth += 1
        try:
            done: futures.Future[Any] = futures.Future()
            done.set_result(self.handle(conn))
            self.finish_request(conn, done)
        finally:
            self._inline_depth -= 1
