"""The events long-poll on the ASGI server: ``GET /api/v1/matches/{id}/events?after=N&wait=S``.

An ASGI middleware in front of Django: the answer is always the API's own ``/events`` view
(same authentication, validation, redaction, schema and problems). When that view answers an
empty page and ``wait`` allows, the middleware holds the request on the match's spectator
channel (every committed event of the match is published there) and asks the view again
when something was published or the time is up. It subscribes before the first ask, so an
event committed in between wakes it. Waiting holds no thread and no database connection, and
each ask waits for one of the process's database turns (live/database.py): one commit wakes
every long-poll of its match at once. A long-poll is admitted (throttled, and holds a slot of
its user's and address's open streams) by live/limits.py, and is logged under one request id.

The WSGI server answers the same request at once (``wait`` is accepted there and ignored):
waiting clients belong on the ASGI server (docs/live.md).
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponseBase

from live.bus import KEEPALIVE, bus, match_channel
from live.database import database_turn
from live.limits import access_logged, admit, release, send_plain
from observability import request_id

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_EVENTS = re.compile(
    r"^/api/v1/matches/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/events$"
)
_WAIT = re.compile(r"[0-9]{1,2}", re.ASCII)


def _wait_seconds(scope: Scope) -> int:
    """``wait`` when valid and positive, else 0 (an invalid one is the view's 400 to give)."""
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("wait", [])
    if len(values) != 1 or not _WAIT.fullmatch(values[-1]):
        return 0
    wait = int(values[-1])
    return wait if wait <= settings.FACEDOWN_LIVE_MAX_WAIT_SECONDS else 0


class _Captured:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def send(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def status(self) -> int:
        return int(self.messages[0]["status"]) if self.messages else 500

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.messages[1:])

    def empty_page(self) -> bool:
        if self.status != 200:
            return False
        try:
            return not json.loads(self.body)["results"]
        except (ValueError, KeyError, TypeError):
            return False


async def _ask(app: App, scope: Scope) -> _Captured:
    """Run the view once for this request; keep its answer."""
    delivered = False

    async def receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # Django listens for a disconnect; none comes from here
        raise AssertionError("unreachable")

    captured = _Captured()
    # A turn at the database (live/database.py): one commit wakes every long-poll of its
    # match, and each ask runs the view on a thread and a connection of its own.
    async with database_turn():
        await app(dict(scope), receive, captured.send)
    return captured


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class LongPoll:
    """ASGI middleware: long-polls of the events feed wait here; everything else passes."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _EVENTS.match(scope.get("path", "")) if scope["type"] == "http" else None
        wait = _wait_seconds(scope) if match and scope["method"] == "GET" else 0
        if not match or not wait:
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        # One request id for the whole long-poll: each ask's access log line carries it.
        request = ASGIRequest(dict(scope), io.BytesIO())
        token = request_id.activate(request_id.from_request(request.META))
        try:
            admission = await admit(request)
            if not isinstance(admission, HttpResponseBase):
                try:
                    await self._wait(scope, receive, send, match[1], wait)
                finally:
                    await release(admission)
                return
            admission[request_id.HEADER] = request_id.current() or ""
            access_logged(request, "match-events", admission.status_code, start, None)
            await send_plain(admission, send)
        finally:
            request_id.deactivate(token)

    async def _wait(
        self, scope: Scope, receive: Receive, send: Send, match_id: str, wait: int
    ) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        listener = await bus().subscribe(match_channel(match_id, None))
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            answer = await _ask(self.app, scope)
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0 or not answer.empty_page():
                    break
                woken = asyncio.ensure_future(listener.get())
                done, _ = await asyncio.wait(
                    {woken, gone}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                woken.cancel()
                if gone in done:
                    return
                if woken in done and woken.result() is KEEPALIVE:
                    continue  # nothing was published: ask again only when the time is up
                answer = await _ask(self.app, scope)
        finally:
            gone.cancel()
            await listener.close()
        for message in answer.messages:
            await send(message)
