"""Sending and receiving on a psycopg connection's libpq handle, with ``psycopg.pq`` only.

The messages of core/postgresql/begin.py and commit.py go out through libpq's documented calls
(``psycopg.pq.PGconn``: ``flush``, ``consume_input``, ``is_busy``, ``get_result``), waiting on
the socket with ``select.poll``: the loops libpq's manual gives for a non-blocking connection
(psycopg's connections are non-blocking), written here because psycopg's own generators are
not part of its documented API.
"""

from __future__ import annotations

import select

from psycopg import OperationalError, pq
from psycopg.pq.abc import PGconn, PGresult

_READ = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP


def _wait(pgconn: PGconn, events: int) -> int:
    poller = select.poll()
    poller.register(pgconn.socket, events)
    while True:
        ready = poller.poll()
        if ready:
            return ready[0][1]


def send(pgconn: PGconn) -> None:
    """Flush what was queued with ``send_…`` to the server."""
    while pgconn.flush() != 0:
        if _wait(pgconn, _READ | select.POLLOUT) & _READ:
            pgconn.consume_input()  # the server may answer before taking everything


def _fetch(pgconn: PGconn) -> PGresult | None:
    while pgconn.is_busy():
        _wait(pgconn, _READ)
        pgconn.consume_input()
    return pgconn.get_result()


def fetch_many(pgconn: PGconn) -> list[PGresult]:
    """The results of one query (or one pipeline sync, alone), until libpq says none is left."""
    results: list[PGresult] = []
    while True:
        try:
            result = _fetch(pgconn)
        except OperationalError:
            # The connection broke after the server's error: the error is the answer.
            if any(r.status == pq.ExecStatus.FATAL_ERROR for r in results):
                break
            raise
        if result is None:
            break
        results.append(result)
        if result.status == pq.ExecStatus.PIPELINE_SYNC:  # not followed by a None
            break
    return results


def execute(pgconn: PGconn) -> list[PGresult]:
    """Send what was queued and return every result of it."""
    send(pgconn)
    return fetch_many(pgconn)
