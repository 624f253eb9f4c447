"""/static/ under the ASGI server (``manage.py serve``, the embedded default): the admin's and
the apps' files, found as WhiteNoise finds them (what collectstatic gathered, else each app's
folder), answered here in one plain body. WhiteNoise answers with a file response, whose
synchronous body Django's ASGI handler consumes on a thread and warns about on every load.
The web server (WSGI) keeps WhiteNoise and its compressed copies."""

from __future__ import annotations

import asyncio
import posixpath
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.exceptions import SuspiciousFileOperation

from core.small_files import SmallFile, small_file_locate, small_file_read
from live.longpoll import App, Receive, Scope, Send

# WhiteNoise's defaults outside DEBUG: a minute of caching, readable from other origins.
CACHE_CONTROL = b"max-age=60, public"


def static_file_find(relative: str) -> SmallFile | None:
    """The collected copy first, then the finders (every app's static folder)."""
    normal = posixpath.normpath(relative)
    if normal.startswith(("/", "..")) or "\x00" in normal:
        return None
    path = small_file_locate(Path(settings.STATIC_ROOT), normal)
    if path is None:
        try:
            found = finders.find(normal)
        except SuspiciousFileOperation:
            return None
        path = Path(found) if isinstance(found, str) and Path(found).is_file() else None
    return small_file_read(path) if path is not None else None


class StaticFiles:
    """GET and HEAD under STATIC_URL; anything else, or a file it lacks, goes to ``app``."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.prefix = "/" + settings.STATIC_URL.strip("/") + "/"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or scope["method"] not in ("GET", "HEAD")
            or not path.startswith(self.prefix)
        ):
            await self.app(scope, receive, send)
            return
        file = await asyncio.to_thread(static_file_find, path[len(self.prefix) :])
        if file is None:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        since = headers.get(b"if-modified-since", b"").decode("latin-1") or None
        common = [
            (b"last-modified", file.last_modified.encode()),
            (b"cache-control", CACHE_CONTROL),
            (b"access-control-allow-origin", b"*"),
            # What SecurityMiddleware adds to every answer of Django's.
            (b"x-content-type-options", b"nosniff"),
        ]
        if file.unchanged_since(since):
            await send({"type": "http.response.start", "status": 304, "headers": common})
            await send({"type": "http.response.body", "body": b""})
            return
        common += [
            (b"content-type", file.content_type.encode()),
            (b"content-length", str(len(file.body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": common})
        body = b"" if scope["method"] == "HEAD" else file.body
        await send({"type": "http.response.body", "body": body})
