"""One Chromium for a run of browser tests in a row, not one per module: each test still gets
fresh contexts (its own cookies and storage), and each launch of Playwright's driver and
Chromium costs about 1.5 s of CPU. tests/conftest.py closes it before the first test that does
not use it, so no other test runs beside Playwright's event loop or with Django's async-safety
check switched off (both belong to the browser tests only)."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Browser, Playwright, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"


class SharedBrowser:
    def __init__(self, executable: str, args: list[str]) -> None:
        self.executable = executable
        self.args = args
        self.launches = 0
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._previous: str | None = None

    @property
    def running(self) -> bool:
        return self._playwright is not None

    def get(self) -> Browser:
        """The running Chromium, launched when there is none (or the last one went away)."""
        if self._browser is not None and not self._browser.is_connected():
            self.close()
        if self._browser is None:
            # Playwright's sync API keeps an event loop in this thread; Django's ORM calls made
            # by the test itself (fixtures, assertions) are still synchronous, so let them
            # through meanwhile.
            self._previous = os.environ.get(ASYNC_UNSAFE)
            os.environ[ASYNC_UNSAFE] = "true"
            self._playwright = sync_playwright().start()
            try:
                self._browser = self._playwright.chromium.launch(
                    executable_path=self.executable, args=self.args, headless=True
                )
            except BaseException:
                self.close()
                raise
            self.launches += 1
        return self._browser

    def close(self) -> None:
        playwright, browser = self._playwright, self._browser
        if playwright is None:
            return
        self._playwright = self._browser = None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            playwright.stop()
            if self._previous is None:
                os.environ.pop(ASYNC_UNSAFE, None)
            else:
                os.environ[ASYNC_UNSAFE] = self._previous


shared = SharedBrowser(str(CHROMIUM), CHROMIUM_ARGS)
