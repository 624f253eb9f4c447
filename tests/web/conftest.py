"""Browser tests: headless Debian Chromium driven by Playwright against pytest-django's
live server (the real app in a thread), with the embedded worker playing bots.

Chromium comes from Debian (``apt-get install chromium``; scripts/test installs it as root when
missing), never from ``playwright install``. Without it these tests skip and say why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from accounts.models import User
from tests.web.shared_browser import CHROMIUM, shared

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
PASSWORD = "a-long-browser-password"
TIMEOUT_MS = 10_000


@pytest.fixture
def browser() -> Browser:
    """The run's Chromium (tests/web/shared_browser.py), launched by the first browser test of
    a row of them."""
    if not CHROMIUM.exists():
        reason = (
            f"{CHROMIUM} is missing: install Debian's chromium (scripts/test does it as root: "
            "apt-get update && apt-get install -y chromium)"
        )
        print(f"\nSKIP browser tests: {reason}")
        pytest.skip(reason)
    return shared.get()


@pytest.fixture
def embedded_worker(settings: Any) -> Iterator[None]:
    """Bots and deadlines on the embedded worker thread, as in the default run mode."""
    from games.embedded import worker

    settings.FACEDOWN_TASK_RUNNER = "embedded"
    settings.FACEDOWN_SWEEP_SECONDS = 0.5
    worker.start()
    try:
        yield
    finally:
        worker.stop()


@pytest.fixture
def new_page(browser: Browser, live_server: Any) -> Iterator[Callable[..., Page]]:
    """``new_page(width=…)``: a page in a fresh browser context (its own cookies and storage)."""
    contexts: list[BrowserContext] = []

    def make(width: int = 1100, height: int = 900) -> Page:
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": width, "height": height}
        )
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    errors: list[str] = []
    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def user(transactional_db: None) -> Callable[[str], User]:
    def make(name: str) -> User:
        return User.objects.create_user(username=name, password=PASSWORD)

    return make


def log_in(page: Page, username: str) -> None:
    page.goto("/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")
    page.locator("#mine-status:not(:has-text('Loading'))").wait_for()


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
