"""Evening out the web server's workers: a worker serving more than its share sheds connections.

granian's workers accept from one shared socket in their Rust threads whether or not their
Python thread is busy, and a keep-alive connection stays with the worker that accepted it: with
a few busy connections per machine, one worker can hold most of them while another idles
(docs/benchmarks.md, "The web server"). Here every worker counts its requests in memory the
workers share (made by the master before the fork); four times a second each compares its
count with the others'. When it served more than ``MARGIN`` above the mean since the last look,
its next answer says ``Connection: close``: the client reconnects (HTTP/1.1 allows it at any
answer) and lands on a worker the kernel picks, so connections flow from busy workers to idle
ones, one at a time, until the counts even out, and nothing is closed while they are even.
Closing more at once was measured churning: every connection of the busy worker closed within
a look, the split drawn again at random (docs/benchmarks.md).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import time
from typing import Any

#: Seconds between two comparisons of the workers' counts.
INTERVAL = 0.25
#: A worker sheds one connection when it served this much more than the mean of all workers.
MARGIN = 0.2


class Balance:
    """Created by the master before the fork, one slot per worker; each worker claims the slot
    of a worker that is gone (or was never there) on its first request."""

    def __init__(self, workers: int) -> None:
        self.pids = multiprocessing.RawArray(ctypes.c_long, workers)
        self.counts = multiprocessing.RawArray(ctypes.c_longlong, workers)
        self.claim = multiprocessing.Lock()
        self.slot = -1  # this worker's, once claimed
        self.seen: list[int] = []
        self.next_look = 0.0
        self.shedding = False  # one answer of this worker is to close its connection

    def _claim(self) -> int:
        me = os.getpid()
        with self.claim:
            for slot, pid in enumerate(self.pids):
                if pid == 0 or not _alive(pid):
                    self.pids[slot] = me
                    self.counts[slot] = 0
                    return slot
        return -1  # more workers than slots: this one never sheds

    def close_this_connection(self) -> bool:
        """Counts the request being answered; True when its connection should be closed."""
        if self.slot < 0:
            self.slot = self._claim()
            if self.slot < 0:
                return False
        self.counts[self.slot] += 1
        now = time.monotonic()
        if now >= self.next_look:
            self.next_look = now + INTERVAL
            self._look()
        if self.shedding:
            self.shedding = False
            return True
        return False

    def _look(self) -> None:
        counts = list(self.counts)
        if len(self.seen) == len(counts):
            served = [max(0, now - before) for now, before in zip(counts, self.seen, strict=True)]
            alive = [n for n, pid in zip(served, self.pids, strict=True) if pid]
            mean = sum(alive) / len(alive) if alive else 0.0
            self.shedding = len(alive) > 1 and served[self.slot] > mean * (1 + MARGIN)
        self.seen = counts


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def shed_header(balance: Any, headers: list[tuple[str, str]]) -> None:
    if balance is not None and balance.close_this_connection():
        headers.append(("Connection", "close"))
