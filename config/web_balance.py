"""Evening out the web server's workers: a saturated worker serving more than its share sheds
connections.

On Linux each granian worker listens on a socket of its own (``SO_REUSEPORT``) and the kernel
hands each new connection to one of them by a hash of its addresses, whether that worker is
busy or not; a keep-alive connection then stays with it. With a few busy connections per
machine one worker can hold most of them while another idles (docs/benchmarks-history.md, "The web
server"). Here every worker counts its requests, and the time its thread spent on them, in
memory the workers share (made by the master before the fork); four times a second each
compares its count with the others'. When it was busy nearly all the time (``SATURATED``: its
requests were queueing) and served more than ``MARGIN`` above the mean, its next answer says
``Connection: close``: the client reconnects (HTTP/1.1 allows it at any answer) and the kernel
picks a worker again, so connections flow from saturated workers, one at a time, until the
counts even out. Nothing is closed while they are even or while no worker is saturated (one
client alone is never bounced between idle workers). Closing more at once was measured
churning: every connection of the busy worker closed within a look and the split drawn again
at random (docs/benchmarks-history.md).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
from time import monotonic

#: Seconds between two comparisons of the workers' counts.
INTERVAL = 0.25
#: A worker sheds one connection when it served this much more than the mean of all workers...
MARGIN = 0.2
#: ... and its threads were busy at least this share of the time since the last look.
SATURATED = 0.9
#: Seconds a worker waits for the slot table; past that it never sheds (the lock's holder died).
CLAIM_TIMEOUT = 1.0


class Balance:
    """Created by the master before the fork, with two slots per worker (a replacement may start
    while the worker it replaces still drains); each worker claims a free one before serving."""

    def __init__(self, workers: int) -> None:
        self.pids = multiprocessing.RawArray(ctypes.c_long, 2 * workers)
        self.counts = multiprocessing.RawArray(ctypes.c_longlong, 2 * workers)
        self.table = multiprocessing.Lock()
        self.slot = -1  # this worker's, once claimed
        self.seen: list[int] = []
        self.busy = 0.0  # seconds this worker's threads served requests since the last look
        self.last_look = 0.0
        self.next_look = 0.0
        self.shedding = False  # one answer of this worker is to close its connection

    def claim(self) -> None:
        """Takes the slot of a worker that is gone, or was never there; once per worker, before
        its threads serve (two threads claiming at once would take two)."""
        if not self.table.acquire(timeout=CLAIM_TIMEOUT):
            return
        try:
            me = os.getpid()
            for slot, pid in enumerate(self.pids):
                if pid == 0 or not _alive(pid):
                    self.pids[slot] = me
                    self.counts[slot] = 0
                    self.slot = slot
                    return
        finally:
            self.table.release()

    def answered(self, busy: float) -> bool:
        """Counts an answered request that took ``busy`` seconds of a thread; True when its
        connection should be closed."""
        if self.slot < 0:
            return False
        self.counts[self.slot] += 1
        self.busy += busy
        now = monotonic()
        if now >= self.next_look:
            self._look(now)
        if self.shedding:
            self.shedding = False
            return True
        return False

    def _look(self, now: float) -> None:
        counts = list(self.counts)
        saturated = self.busy >= SATURATED * (now - self.last_look)
        if self.seen:
            served = [max(0, c - before) for c, before in zip(counts, self.seen, strict=True)]
            alive = [n for n, pid in zip(served, self.pids, strict=True) if pid]
            mean = sum(alive) / len(alive) if alive else 0.0
            above = served[self.slot] > mean * (1 + MARGIN)
            self.shedding = saturated and len(alive) > 1 and above
        self.seen = counts
        self.busy = 0.0
        self.last_look = now
        self.next_look = now + INTERVAL


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
