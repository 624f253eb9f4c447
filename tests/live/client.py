"""A small client of the live streams for tests: opens a stream on a real server and reads
its items (SSE or NDJSON) with a timeout."""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Item:
    type: str
    id: int | str | None  # a match event's seq; an account item's log id
    data: Any


KEEPALIVE = Item("keepalive", None, None)


@dataclass
class Stream:
    port: int
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    ndjson: bool = False

    def __post_init__(self) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = dict(self.headers)
        if self.ndjson:
            headers["Accept"] = "application/x-ndjson"
        self.connection.request("GET", self.path, headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.content_type = self.response.getheader("Content-Type", "")
        self.lines: queue.Queue[str | None] = queue.Queue()
        if self.status == 200:
            threading.Thread(target=self._read_lines, daemon=True).start()

    def body(self) -> Any:
        """An error answer's JSON body."""
        return json.loads(self.response.read())

    def _read_lines(self) -> None:
        """On a thread of its own: a socket that timed out cannot be read again, so the
        waiting happens on the queue instead."""
        try:
            while raw := self.response.readline():
                self.lines.put(raw.decode().rstrip("\n"))
        except Exception:  # the socket was closed under it: the stream is over
            pass
        self.lines.put(None)

    def _line(self, deadline: float) -> str | None:
        try:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            self.lines.put(None)
            raise EOFError("the stream ended")
        return line

    def next(self, timeout: float = 5.0) -> Item | None:
        """The next item (``KEEPALIVE`` for a keep-alive), or None after ``timeout``."""
        deadline = time.monotonic() + timeout
        fields: dict[str, str] = {}
        while True:
            line = self._line(deadline)
            if line is None:
                return None
            if self.ndjson:
                if line == "":
                    return KEEPALIVE
                obj = json.loads(line)
                return Item(obj["type"], obj["id"], obj["data"])
            if line.startswith(":"):
                return KEEPALIVE
            if line == "":
                if "data" in fields:
                    seq = fields.get("id")
                    kind = fields.get("event", "message")
                    number: int | str | None = seq
                    if seq is not None and seq.isdigit():
                        number = int(seq)
                    return Item(kind, number, json.loads(fields["data"]))
                continue  # a blank line after retry:, or between items
            name, _, value = line.partition(": ")
            fields[name] = value

    def events(self, count: int, timeout: float = 5.0) -> list[Item]:
        """The next ``count`` items that are not keep-alives."""
        found: list[Item] = []
        deadline = time.monotonic() + timeout
        while len(found) < count:
            item = self.next(max(0.01, deadline - time.monotonic()))
            assert item is not None, f"only {len(found)} of {count} items came: {found}"
            if item is not KEEPALIVE:
                found.append(item)
        return found

    def quiet(self, seconds: float) -> list[Item]:
        """Everything but keep-alives that arrives within ``seconds``."""
        found: list[Item] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            item = self.next(max(0.01, deadline - time.monotonic()))
            if item is not None and item is not KEEPALIVE:
                found.append(item)
        return found

    def close(self) -> None:
        if self.connection.sock is not None:
            self.connection.sock.shutdown(2)
        self.connection.close()
