"""Installable on phones: Chromium itself parses the web app manifest every page links to and
finds nothing that stops an install (CDP's Page.getAppManifest and getInstallabilityErrors).

A persistent profile, not the other browser tests' fresh contexts: Chromium refuses to install
from an incognito-like context whatever the site does ("in-incognito")."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, sync_playwright

from tests.web.conftest import TIMEOUT_MS
from tests.web.shared_browser import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture
def profile(tmp_path: Path, live_server: Any) -> Iterator[BrowserContext]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium")
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path / "profile"),
                executable_path=str(CHROMIUM),
                args=CHROMIUM_ARGS,
                headless=True,
                base_url=live_server.url,
                viewport={"width": 412, "height": 915},
            )
            context.set_default_timeout(TIMEOUT_MS)
            try:
                yield context
            finally:
                context.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def test_chromium_parses_the_manifest_and_finds_the_app_installable(
    profile: BrowserContext, transactional_db: None, live_server: Any
) -> None:
    page = profile.new_page()
    page.goto("/login")
    cdp = profile.new_cdp_session(page)

    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{live_server.url}/assets/manifest.webmanifest"
    assert manifest["errors"] == []
    parsed = manifest["manifest"]
    assert parsed["name"] == "Facedown" and parsed["display"] == "kStandalone"
    assert parsed["startUrl"] == f"{live_server.url}/" and parsed["scope"] == parsed["startUrl"]
    assert {(icon["url"].rsplit("/", 1)[1], icon["sizes"]) for icon in parsed["icons"]} == {
        ("icon-192.png", "192x192"),
        ("icon-512.png", "512x512"),
        ("icon-maskable-512.png", "512x512"),
    }
    # Chromium fetches the icons and checks them (size, type) before it answers.
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
