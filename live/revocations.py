"""Revocations reach open streams: a notice on the bus at once, the database as the fallback.

- ``revocations_publish`` is registered with ``accounts.revocation`` (every revoking
  transaction: logout, token rotation and reset, password change and reset, deactivation,
  account deletion) and, for the web session, with Django's ``user_logged_out`` signal (which
  records a revocation too). Once the transaction commits it publishes ``{"revoked": id}`` on
  each user's ``revoked:<id>`` channel; every stream of the user, on every ASGI process,
  checks its credential again and ends if it no longer stands.
- ``RevocationWatch``: in case a notice is lost (Redis dropped it), each process reads the
  revocation log (``TokenRevocation``, one small indexed read for all its
  streams) at most once per keep-alive interval, and a stream whose user was revoked after its
  credential was checked checks it again at its next keep-alive.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from functools import partial
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from accounts.models import TokenRevocation
from accounts.revocation import revocation_record
from live.bus import bus, revoked_channel
from live.database import bounded

logger = logging.getLogger(__name__)

#: How long the watch remembers a user's revocation: far past any keep-alive.
_REMEMBER_SECONDS = 7200.0


def revocations_publish(user_ids: list[int]) -> None:
    """Inside the revoking transaction: the notices leave once it commits."""
    messages = [(revoked_channel(pk), json.dumps({"revoked": pk})) for pk in user_ids]
    transaction.on_commit(partial(bus().publish_many, messages), robust=True)


def session_logged_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Django's ``user_logged_out``: a web session ended, so the streams (and tickets) it
    opened end too; recorded like any revocation so a lost notice is caught all the same."""
    if user is not None and user.pk is not None:
        revocation_record([user.pk])


class RevocationWatch:
    """The revocations this process has read from the database: user id → the number of
    their latest revocation. Shared by every stream of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cursor = 0
        self._latest: dict[int, tuple[int, float]] = {}
        self._read_at = -float("inf")
        self._reading = False

    def _read(self) -> None:
        # By row id, not by number: revocations are written under the clock's lock, so ids
        # grow in commit order as the numbers do, and unlike the numbers they never start
        # over when the log is emptied.
        try:
            rows = list(
                TokenRevocation.objects.filter(id__gt=self._cursor).values_list(
                    "id", "seq", "user_id"
                )
            )
        finally:
            if not connection.in_atomic_block:
                connection.close()
        now = time.monotonic()
        with self._lock:
            for row_id, seq, pk in rows:
                self._cursor = max(self._cursor, row_id)
                self._latest[pk] = (max(seq, self._latest.get(pk, (0, now))[0]), now)
            self._latest = {
                pk: seen for pk, seen in self._latest.items() if now - seen[1] < _REMEMBER_SECONDS
            }

    async def latest(self, user_id: int) -> int:
        """The number of ``user_id``'s latest revocation this process knows of (0: none),
        reading the log first if the last read is a keep-alive interval old."""
        now = time.monotonic()
        with self._lock:
            interval = settings.FACEDOWN_LIVE_KEEPALIVE_SECONDS
            due = not self._reading and now - self._read_at >= interval
            if due:
                self._reading, self._read_at = True, now
        if due:
            try:
                await bounded(self._read)()
            except Exception:  # the database is away: read again an interval later
                logger.warning("live: the revocation log could not be read", exc_info=True)
            finally:
                self._reading = False
        with self._lock:
            return self._latest.get(user_id, (0, 0.0))[0]


watch = RevocationWatch()
