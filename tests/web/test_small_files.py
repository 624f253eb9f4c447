"""The web client's small files (CSS, JavaScript, the service worker, the favicon, the manifest
and its icons) come as plain responses, never a streamed file body (which Django's ASGI handler
warns about on every load), and still revalidate: Last-Modified, then 304. /static/ under the
ASGI server: tests/test_quiet_first_run.py."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from django.test import Client

from accounts.models import User

FILES = [
    ("/assets/app.css", "text/css"),
    ("/assets/api.js", "text/javascript"),
    ("/sw.js", "text/javascript"),
    ("/favicon.ico", "image/"),
    ("/assets/manifest.webmanifest", "application/manifest+json"),
    ("/assets/icons/icon-192.png", "image/png"),
]


@pytest.mark.parametrize(("path", "kind"), FILES)
def test_small_files_are_plain_answers_that_revalidate(db: None, path: str, kind: str) -> None:
    client = Client()
    answer = client.get(path)
    assert answer.status_code == 200 and answer["Content-Type"].startswith(kind)
    assert not answer.streaming
    assert int(answer["Content-Length"]) == len(answer.content) > 0
    again = client.get(path, HTTP_IF_MODIFIED_SINCE=answer["Last-Modified"])
    assert again.status_code == 304 and again.content == b""
    older = client.get(path, HTTP_IF_MODIFIED_SINCE="Mon, 01 Jan 2001 00:00:00 GMT")
    assert older.status_code == 200 and older.content == answer.content


@pytest.mark.parametrize(
    "path",
    ["/assets/../views.py", "/assets/%2e%2e/views.py", "/assets/nothing.js", "/assets/icons"],
)
def test_nothing_outside_the_assets_or_missing_is_served(db: None, path: str) -> None:
    assert Client().get(path).status_code in (400, 404)  # refused as suspicious, or missing


def _png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n" and body[12:16] == b"IHDR"
    width, height = struct.unpack(">II", body[16:24])
    return width, height


def test_the_manifest_names_the_app_and_its_icons_at_their_sizes(db: None) -> None:
    client = Client()
    manifest = json.loads(client.get("/assets/manifest.webmanifest").content)
    assert manifest["name"] == "Facedown" and manifest["short_name"]
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert manifest["theme_color"].startswith("#") and manifest["background_color"].startswith("#")
    purposes = set()
    for icon in manifest["icons"]:
        answer = client.get(icon["src"])
        assert answer.status_code == 200 and answer["Content-Type"] == icon["type"] == "image/png"
        width, height = _png_size(answer.content)
        assert icon["sizes"] == f"{width}x{height}"
        purposes.add((icon["purpose"], width))
    assert {("any", 192), ("any", 512), ("maskable", 512)} <= purposes


def test_every_page_links_the_manifest(client: Client, db: None) -> None:
    link = '<link rel="manifest" href="/assets/manifest.webmanifest">'
    for path in ["/login", "/signup", "/leaderboard", "/players/nobody"]:
        assert link in client.get(path).content.decode(), path
    client.force_login(User.objects.create_user(username="ines", password="x-long-password"))
    for path in ["/", "/matches/3f2b8c1e-0000-4000-8000-000000000000"]:
        assert link in client.get(path).content.decode(), path


def test_the_login_page_names_the_demo_players_in_the_embedded_mode_only(
    client: Client, settings: Any, db: None
) -> None:
    settings.FACEDOWN_MODE = "production"
    page = client.get("/login").content.decode()
    assert "facedown-demo" not in page and 'id="demo-login"' not in page
    settings.FACEDOWN_MODE = "embedded"
    page = client.get("/login").content.decode()
    assert 'id="demo-login"' in page
    assert "<strong>alice</strong> / <strong>facedown-demo</strong>" in page
