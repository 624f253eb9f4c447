"""The streams straight on ASGI: an outer middleware serves the two stream paths without
Django's request handler, so an idle stream costs its listener, its coroutine and its socket,
and no thread: Django's handler keeps a thread per request (its ``ThreadSensitiveContext``)
for as long as the response streams. The views (live/views.py) are the same; only the request
object is built here and the response sent here."""

from __future__ import annotations

import asyncio
import functools
import io
import re
import time
from collections.abc import AsyncIterator
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponseBase
from django.utils.functional import SimpleLazyObject

from live import views
from live.limits import access_logged, admit, release
from live.longpoll import App, Receive, Scope, Send
from observability import request_id

_MATCH_STREAM = re.compile(r"^/api/v1/matches/([^/]+)/stream$")
_USER_STREAM = "/api/v1/accounts/me/stream"
_TOURNAMENT_STREAM = re.compile(r"^/api/v1/tournaments/([^/]+)/stream$")


def _request(scope: Scope) -> ASGIRequest:
    """Django's request for the scope, with the web session's user (read lazily, on the
    thread that authenticates)."""
    request = ASGIRequest(dict(scope), io.BytesIO())
    engine = import_module(settings.SESSION_ENGINE)
    request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    request.user = SimpleLazyObject(lambda: get_user(request))  # type: ignore[assignment]
    return request


#: A chunk shared by many streams is encoded once.
_bytes = functools.lru_cache(maxsize=64)(str.encode)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _send(response: HttpResponseBase, receive: Receive, send: Send) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.items()]
    start = {"type": "http.response.start", "status": response.status_code, "headers": headers}
    await send(start)
    items: AsyncIterator[str] | None = getattr(response, "live_items", None)
    if items is None:
        await send({"type": "http.response.body", "body": response.content})  # type: ignore[attr-defined]
        return
    # One task per stream: it waits on the stream's queue; the client leaving cancels it.
    pump = asyncio.current_task()
    assert pump is not None

    async def watch() -> None:
        await _disconnected(receive)
        pump.cancel()

    gone = asyncio.ensure_future(watch())
    try:
        async for chunk in items:
            await send({"type": "http.response.body", "body": _bytes(chunk), "more_body": True})
        # The generator ended: the bus broke. End the body; the client resumes.
        await send({"type": "http.response.body", "body": b""})
    except asyncio.CancelledError:
        if not gone.done():
            raise  # the server is stopping
    finally:
        gone.cancel()
        await items.aclose()  # type: ignore[attr-defined]


class Streams:
    """ASGI middleware: the stream paths are served here; everything else passes."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        match = _MATCH_STREAM.match(path) if scope["type"] == "http" else None
        cup = _TOURNAMENT_STREAM.match(path) if scope["type"] == "http" else None
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or (match is None and cup is None and path != _USER_STREAM)
        ):
            await self.app(scope, receive, send)
            return
        request = _request(scope)
        try:
            request.get_host()
        except DisallowedHost:  # Django's own handler answers it, as for any other path
            await self.app(scope, receive, send)
            return
        token = request_id.activate(request_id.from_request(request.META))
        try:
            await self._serve(request, match, cup, receive, send)
        finally:
            request_id.deactivate(token)

    async def _serve(
        self,
        request: ASGIRequest,
        match: re.Match[str] | None,
        cup: re.Match[str] | None,
        receive: Receive,
        send: Send,
    ) -> None:
        """Admit the open (live/limits.py), run the view, log the open, send the stream; the
        slot is freed when the stream ends, or at once when the view refused."""
        start = time.perf_counter()
        route = (
            "live-match-stream"
            if match is not None
            else "live-tournament-stream"
            if cup is not None
            else "live-user-stream"
        )
        admission = await admit(request)
        try:
            response: Any
            if not isinstance(admission, HttpResponseBase):
                if match is not None:
                    response = await views.match_stream(request, match[1])
                elif cup is not None:
                    response = await views.tournament_stream(request, cup[1])
                else:
                    response = await views.user_stream(request)
                user = admission.opener.user_id if response.status_code == 200 else None
            else:
                response, user = admission, None
            response[request_id.HEADER] = request_id.current() or ""
            access_logged(request, route, response.status_code, start, user)
            await _send(response, receive, send)
        finally:
            await release(admission)
