"""Small static files (the web client's CSS and JavaScript, the service worker, icons, the API
docs' files) read whole into a plain response. Under ASGI a file response is a synchronous
streaming body, which Django consumes on a thread and warns about on every load; files of a few
kilobytes gain nothing from streaming. Revalidation stays: Last-Modified and 304."""

from __future__ import annotations

import mimetypes
import posixpath
from dataclasses import dataclass
from pathlib import Path

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.http import http_date, parse_http_date_safe

# Types the interpreter's table may lack or spell otherwise, whatever the host's mime.types says.
CONTENT_TYPES = {
    ".webmanifest": "application/manifest+json",
    ".js": "text/javascript",
    ".css": "text/css",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}


@dataclass(frozen=True)
class SmallFile:
    body: bytes
    content_type: str
    modified: int  # whole seconds since the epoch, as HTTP dates carry them

    @property
    def last_modified(self) -> str:
        return http_date(self.modified)

    def unchanged_since(self, if_modified_since: str | None) -> bool:
        """True when the client's copy (its If-Modified-Since header) is still current."""
        since = parse_http_date_safe(if_modified_since) if if_modified_since else None
        return since is not None and self.modified <= since


def small_file_locate(root: Path, relative: str) -> Path | None:
    """The file at ``relative`` under ``root``; None when missing or outside it."""
    normal = posixpath.normpath(relative)
    if normal.startswith(("/", "..")) or "\x00" in normal:
        return None
    base = root.resolve()
    candidate = (base / normal).resolve()
    if not candidate.is_relative_to(base) or not candidate.is_file():
        return None
    return candidate


def small_file_read(path: Path) -> SmallFile:
    guessed, encoding = mimetypes.guess_type(path.name)
    content_type = CONTENT_TYPES.get(path.suffix.lower()) or guessed or "application/octet-stream"
    if encoding is not None:  # a .gz is served as the bytes it is, never as its content
        content_type = "application/octet-stream"
    elif content_type.startswith("text/"):  # the project's text files are UTF-8
        content_type += "; charset=utf-8"
    return SmallFile(path.read_bytes(), content_type, int(path.stat().st_mtime))


def small_file_response(
    request: HttpRequest, root: Path, relative: str, *, cache_control: str
) -> HttpResponse:
    """The file as a plain response, or 304 when the client's copy is current; 404 else."""
    path = small_file_locate(root, relative)
    if path is None:
        raise Http404("No such file.")
    file = small_file_read(path)
    response: HttpResponse
    if file.unchanged_since(request.headers.get("If-Modified-Since")):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(file.body, content_type=file.content_type)
    response["Last-Modified"] = file.last_modified
    response["Cache-Control"] = cache_control
    return response
