"""Many long-polls at once against a real server, and PostgreSQL's count of that server's
connections while they run (the database pool's test prints its figures with ``-s``)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Answer:
    status: int
    body: Any


def _parse(raw: bytes) -> Answer:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    if headers.get("transfer-encoding") == "chunked":
        chunks, rest = [], body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            chunks.append(rest[:size])
            rest = rest[size + 2 :]
        body = b"".join(chunks)
    return Answer(status, json.loads(body) if body else None)


async def _get(port: int, path: str, headers: dict[str, str]) -> Answer:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    raw = await reader.read()
    writer.close()
    return _parse(raw)


class Polls:
    """``count`` GETs of ``path`` sent at once from a thread of their own; ``join()`` their
    answers."""

    def __init__(self, port: int, path: str, headers: dict[str, str], count: int) -> None:
        self.answers: list[Answer] = []

        async def all_of_them() -> None:
            self.answers = list(
                await asyncio.gather(*(_get(port, path, headers) for _ in range(count)))
            )

        self.thread = threading.Thread(target=asyncio.run, args=(all_of_them(),), daemon=True)
        self.thread.start()

    def join(self, timeout: float) -> list[Answer]:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the long-polls did not all answer"
        return self.answers


@dataclass
class ConnectionCount:
    """Samples, every few milliseconds, how many connections PostgreSQL holds for clients
    named ``application`` (a server started with ``PGAPPNAME``); ``peak`` is the most seen."""

    dsn: str
    application: str
    peak: int = 0
    now: int = 0
    samples: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> ConnectionCount:
        import psycopg

        self._connection = psycopg.connect(self.dsn, autocommit=True)
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
        while not self._stop.is_set():
            row = self._connection.execute(query, (self.application,)).fetchone()
            self.now = int(row[0]) if row else 0
            self.peak = max(self.peak, self.now)
            self.samples += 1
            time.sleep(0.002)

    def settled(self, seconds: float, timeout: float, most: int) -> None:
        """Wait until no connection was held for ``seconds`` in a row; fail at once when more
        than ``most`` were held at one time."""
        deadline = time.monotonic() + timeout
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            assert self.peak <= most, f"{self.peak} connections at once"
            if self.now:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= seconds:
                return
            time.sleep(0.01)
        raise AssertionError(f"{self.now} connections still held")

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._connection.close()
