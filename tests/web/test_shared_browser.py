"""The browser tests' shared Chromium (tests/web/shared_browser.py): one launch for tests in a
row, another when it went away, and nothing of Playwright left once closed."""

from __future__ import annotations

import asyncio
import os

import pytest

from tests.web.shared_browser import ASYNC_UNSAFE, CHROMIUM, CHROMIUM_ARGS, SharedBrowser, shared


def test_one_launch_for_tests_in_a_row_and_nothing_left_once_closed() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium")
    # This test uses no browser: tests/conftest.py closed the run's before it began.
    assert not shared.running
    before = os.environ.get(ASYNC_UNSAFE)
    browsers = SharedBrowser(str(CHROMIUM), CHROMIUM_ARGS)
    try:
        first = browsers.get()
        assert browsers.get() is first and browsers.launches == 1
        assert os.environ[ASYNC_UNSAFE] == "true"  # the tests' own ORM calls beside the loop
        first.close()  # gone (a crash, say): the next test gets a new one
        assert browsers.get() is not first and browsers.launches == 2
    finally:
        browsers.close()
    assert not browsers.running and os.environ.get(ASYNC_UNSAFE) == before
    with pytest.raises(RuntimeError):  # no event loop left running in this thread
        asyncio.get_running_loop()
