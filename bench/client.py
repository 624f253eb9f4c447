"""A minimal HTTP/1.1 client on asyncio streams, for load generation.

One ``Connection`` per simulated client (as a phone keeps one), kept alive between requests
when the server allows it (``gthread``; gunicorn's ``sync`` workers close every connection and
the client reconnects). Content-Length and chunked bodies; no TLS, no redirects, no
compression. Light on CPU on purpose: the load generator shares the machine with the server.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class Connection:
    #: Reconnect before sending when the connection sat idle this long: the server may be
    #: closing it (keep-alive timeout), and a POST must not be sent into a closing socket.
    IDLE_LIMIT = 1.0

    def __init__(self, host: str, port: int, token: str | None = None) -> None:
        self.host, self.port = host, port
        self.token = token
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._last_used = 0.0
        self.connects = 0
        self._host_header = f"Host: {host}:{port}\r\n".encode()

    async def _open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        self.connects += 1

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        if self._writer is not None and time.monotonic() - self._last_used > self.IDLE_LIMIT:
            self.close()
        fresh = self._writer is None
        if fresh:
            await self._open()
        head = [f"{method} {path} HTTP/1.1\r\n".encode(), self._host_header]
        if self.token:
            head.append(f"Authorization: Token {self.token}\r\n".encode())
        for name, value in (headers or {}).items():
            head.append(f"{name}: {value}\r\n".encode())
        payload = b""
        if body is not None:
            payload = json.dumps(body, separators=(",", ":")).encode()
            head.append(b"Content-Type: application/json\r\n")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            head.append(f"Content-Length: {len(payload)}\r\n".encode())
        head.append(b"\r\n")
        message = b"".join(head) + payload
        try:
            return await self._exchange(message)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            self.close()
            # A reused connection the server closed before reading anything is safe to retry
            # once (the request never reached the application); a fresh one is not.
            if fresh or not getattr(exc, "nothing_read", False):
                raise
            await self._open()
            return await self._exchange(message)

    async def _exchange(self, message: bytes) -> Answer:
        assert self._reader is not None and self._writer is not None
        self._writer.write(message)
        await self._writer.drain()
        try:
            raw = await self._reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            exc.nothing_read = not exc.partial  # type: ignore[attr-defined]
            raise
        lines = raw.decode("latin-1").split("\r\n")
        version, code, *_ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        status = int(code)
        if status in (204, 304) or status < 200:
            body = b""
        elif "content-length" in headers:
            body = await self._reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._chunked()
        else:  # read to close
            body = await self._reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close" or version == "HTTP/1.0":
            self.close()
        self._last_used = time.monotonic()
        return Answer(status, headers, body)

    async def _chunked(self) -> bytes:
        assert self._reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self._reader.readexactly(size))
            await self._reader.readexactly(2)
