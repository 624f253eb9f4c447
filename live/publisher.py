"""Publications sent to Redis without waiting for their replies.

A commit's publications are one pipeline of ``PUBLISH`` commands. Waiting for its replies cost
a move a blocking round trip to Redis and redis-py's pipeline machinery (measured in
docs/benchmarks-history.md) for an answer that only says how many listeners there were.
So the publisher writes the commands on a connection of its own and reads the replies later:
before each send it reads whatever replies have arrived (without waiting), which also finds a
connection that Redis closed before anything is written into it. A reply that is an error is
logged, as a failed publication always was; delivery stays at most once (docs/live.md).

One connection per process, behind a lock (any request or worker thread publishes); a process
forked with one open starts its own. Replies left unread beyond ``max_unread`` (a Redis that
stopped answering but keeps the connection) end the connection, as a timeout would.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

from redis.exceptions import ConnectionError, ResponseError, TimeoutError

logger = logging.getLogger("live.bus")


class Publisher:
    def __init__(self, client: Any, *, max_unread: int = 10_000) -> None:
        self._pool = client.connection_pool
        self._max_unread = max_unread
        self._lock = threading.Lock()
        self._connection: Any = None
        self._pid = 0
        #: PUBLISH commands sent on the current connection whose replies were not read yet.
        self.unread = 0

    def publish(self, messages: Sequence[tuple[str, str]]) -> None:
        """Send ``messages`` (channel, text) in order, after reading the replies that have
        arrived (none to send: only that). Raises when Redis cannot be reached."""
        self.send([("PUBLISH", channel, text) for channel, text in messages])

    def send(self, commands: Sequence[tuple[str, ...]]) -> None:
        """Send ``commands`` (PUBLISH, and the account log's XADD and EXPIRE) in order, in one
        write, as ``publish`` does."""
        packed = None
        with self._lock:
            for attempt in (1, 2):  # a connection found closed is replaced once, as redis-py
                connection = self._ready()
                try:
                    self._read_replies(connection)
                    if not commands:
                        return
                    if packed is None:
                        packed = connection.pack_commands(list(commands))
                    connection.send_packed_command(packed, check_health=False)
                except (ConnectionError, TimeoutError, OSError):
                    self._drop()
                    if attempt == 2:
                        raise
                    continue
                self.unread += len(commands)
                return

    def _ready(self) -> Any:
        if self._connection is not None and self._pid != os.getpid():
            self._connection, self.unread = None, 0  # the parent's: never touched here
        if self._connection is None:
            connection = self._pool.connection_class(**self._pool.connection_kwargs)
            connection.connect()
            self._connection, self._pid = connection, os.getpid()
        return self._connection

    def _read_replies(self, connection: Any) -> None:
        # Also with no reply due: a connection the server closed reads as its end (an error).
        while connection.can_read(timeout=0):
            try:
                connection.read_response()
            except ResponseError as refused:
                logger.warning("live bus: Redis refused a publication: %s", refused)
            self.unread = max(0, self.unread - 1)
        if self.unread > self._max_unread:
            raise TimeoutError(f"{self.unread} publications unanswered by Redis")

    def _drop(self) -> None:
        if self.unread:
            logger.warning(
                "live bus: the connection to Redis ended with %d publications unconfirmed",
                self.unread,
            )
        if self._connection is not None:
            self._connection.disconnect()
        self._connection, self.unread = None, 0
