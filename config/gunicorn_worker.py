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
heartbeat is sent before each request); nothing here runs that long (streams and long-polls are
the ASGI server's). TLS and HTTP/2, which would hold the main thread for a handshake or a whole
connection, keep the pool.
"""

from __future__ import annotations

import contextlib
import errno
import time
from concurrent import futures
from functools import partial
from selectors import EVENT_READ
from typing import Any

from gunicorn.workers.gthread import DEFAULT_WORKER_DATA_TIMEOUT, ThreadWorker

#: New connections a worker serving in its main thread holds, not yet heard, while it still
#: accepts: enough that a connection is taken at once, few enough that one worker does not take
#: every connection while another is idle.
SILENT_MAX = 2


class BalancedThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn has no types
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight = 0  # requests handed to the thread pool and not finished yet
        cfg = self.cfg
        self.inline = (
            cfg.threads == 1
            and not cfg.is_ssl
            and "h2" not in cfg.http_protocols
            and cfg.http2_cleartext == "off"
        )
        self.inline_depth = 0
        #: When the poller last answered: a connection idle until then past its deadline is
        #: closed, not one whose request came while the main thread was serving others.
        self.polled_at = time.monotonic()

    def enqueue_req(self, conn: Any) -> None:
        if self.inline:
            return self._serve_inline(conn)
        self.in_flight += 1
        super().enqueue_req(conn)
        if self.in_flight >= self.cfg.threads:
            self.set_accept_enabled(False)

    def finish_request(self, conn: Any, fs: Any) -> None:
        if not self.inline:
            self.in_flight -= 1
        if conn.sock.fileno() == -1:
            # Closed while its request ran (gunicorn closes it on an exit signal mid-answer):
            # counted once here, where gunicorn's own close would fail and count it again.
            self.nr_conns -= 1
            return
        super().finish_request(conn, fs)

    def set_accept_enabled(self, enabled: bool) -> None:
        # The run loop asks for accepting whenever it has connections to spare; it gets it only
        # with a thread free (and, serving in the main thread, with few silent connections
        # held). Re-asked on every loop turn (each finished request wakes it).
        free = self.in_flight < self.cfg.threads
        quiet = not self.inline or len(self.pending_conns) < SILENT_MAX
        super().set_accept_enabled(enabled and free and quiet)

    # --- one thread: the request served by the main thread itself ---

    def _serve_inline(self, conn: Any) -> None:
        """Serve ``conn``'s request here: with one thread the pool only hands each request to
        that thread and back (a queue, a pipe, two wake-ups and GIL hand-overs per request).

        A new connection waits in the poller for its first bytes (gunicorn's own thread waits
        for them, up to 5 s, and a client on a busy machine may take a while to send: measured,
        even a 50 ms wait here left workers idle); the worker stops accepting while it holds
        ``SILENT_MAX`` connections not yet heard from, so an idle worker takes the next."""
        if not conn.initialized and not conn.data_ready:
            if not self.alive:  # stopping: no new connection is kept waiting
                self.nr_conns -= 1
                conn.close()
                return
            conn.sock.setblocking(False)
            # As long as gunicorn's thread would have waited, whatever the keep-alive.
            wait = max(self.cfg.keepalive, DEFAULT_WORKER_DATA_TIMEOUT)
            conn.timeout = time.monotonic() + wait
            self.pending_conns.append(conn)
            self.poller.register(
                conn.sock, EVENT_READ, partial(self.on_pending_socket_readable, conn)
            )
            self.set_accept_enabled(self._accepting)
            return
        if self.inline_depth:  # a pipelined request, re-enqueued by finish_request below
            self.method_queue.defer(self._serve_inline, conn)
            return
        self.inline_depth += 1
        try:
            self.notify()  # the heartbeat, before each request: only a long one stops it
            done: futures.Future[Any] = futures.Future()
            done.set_result(self.handle(conn))
            self.finish_request(conn, done)
        finally:
            self.inline_depth -= 1

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        # gunicorn's, noting when the poller answered.
        try:
            events = self.poller.select(timeout)
            self.polled_at = time.monotonic()
            for key, _ in events:
                key.data(key.fileobj)
        except OSError as exc:
            if exc.errno != errno.EINTR:
                raise

    def murder_keepalived(self, force: bool = False) -> None:
        self._expire(self.keepalived_conns, force=force)

    def murder_pending(self) -> None:
        self._expire(self.pending_conns, force=False)

    def _expire(self, conns: Any, *, force: bool) -> None:
        """gunicorn's ``murder_keepalived``/``murder_pending``, with the time of the last poll
        as "now" when serving in the main thread: a connection whose deadline passed while the
        main thread served others may have sent its next request meanwhile; the next poll
        says, and it is served."""
        now = self.polled_at if self.inline else time.monotonic()
        while conns:
            conn = conns[0]
            if conn.timeout > now and not force:
                break
            conns.popleft()
            with contextlib.suppress(OSError, KeyError, ValueError):  # already unregistered
                self.poller.unregister(conn.sock)
            self.nr_conns -= 1
            conn.close()
