from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test.client import Client

from tests.players import Player, make_player
from tests.schema_guard import session_guard

# Tests that need the whole machine: the load benchmark's smoke (a stack of several processes
# driven at its measured capacity, beside tests of the load generator's pacing in
# milliseconds), the production install, and the fault tests that kill a worker process in a
# window of a few seconds (a lock timeout, a Redis restart). They are marked ``serial`` here
# and run in scripts/test's serial phase, after the two workers' phase
# (tests/test_serial_phase.py). The other fault tests run beside the rest: their clusters, Redis
# servers and worker processes are their own, on free ports, and nothing they wait for is timed.
# So do the other benchmark smokes: each on a database of its own (named after the worker's)
# and the worker's own Redis database, and none asserts a time (callgrind counts instructions).
SERIAL_PATHS = (
    "tests/faults/test_worker_kill.py",
    "tests/faults/test_worker_reconnects.py",
    "tests/faults/test_bank_sweep_kill.py",
    "tests/bench/test_load_smoke.py",
    "tests/deployment/test_production_install.py",
)
ROOT = Path(__file__).resolve().parents[1]


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(ROOT).as_posix()
        if where.startswith(SERIAL_PATHS):
            item.add_marker(pytest.mark.serial)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Timings a test records as its ``timing`` property (``record_property``), in the closing
    summary, e.g. the production install's set-up apart from its play."""
    for reports in terminalreporter.stats.values():
        for report in reports:
            for name, value in getattr(report, "user_properties", ()):
                if name == "timing" and getattr(report, "when", "") == "call":
                    terminalreporter.write_line(f"timing: {value}")


DESELECTED = pytest.StashKey[list[pytest.Item]]()


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Kept for tests/test_serial_phase.py: what ``-m "not serial"`` left to the serial phase."""
    if items:
        items[0].config.stash.setdefault(DESELECTED, []).extend(items)


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures are set up
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``serial`` test never runs beside another worker (scripts/test: ``-m "not serial"``
    for the workers' phase). A test that uses no browser runs with none open."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and item.get_closest_marker("serial"):
        pytest.fail(f"{item.nodeid} is marked serial but ran on xdist worker {worker}")
    if "browser" not in getattr(item, "fixturenames", ()):
        _close_shared_browser()


def pytest_sessionfinish() -> None:
    _close_shared_browser()


def _close_shared_browser() -> None:
    """Close the browser tests' Chromium (tests/web/shared_browser.py) if this process has
    loaded them at all: without them, no Playwright to import."""
    browsers = sys.modules.get("tests.web.shared_browser")
    if browsers is not None:
        browsers.shared.close()


@pytest.fixture(autouse=True, scope="session")
def responses_match_schema() -> Iterator[None]:
    """Every response of the test clients (Django's and DRF's) on a documented API path must
    match the OpenAPI schema; a stray one fails the test that received it."""
    received = Client.request

    def request(self: Client, **request: Any) -> Any:
        response = received(self, **request)
        session_guard().check(request["REQUEST_METHOD"], request["PATH_INFO"], response)
        return response

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Client, "request", request)
        yield


@pytest.fixture(autouse=True, scope="session")
def worker_recorded(
    django_db_modify_db_settings: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Under pytest-xdist, each worker records what it runs against at its first test, for
    tests/test_worker_isolation.py (the run's workers share the parent of their temp folders)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from tests.workers import record

        record(tmp_path_factory.getbasetemp().parent)


@pytest.fixture(autouse=True)
def throttle_leases_forgotten() -> None:
    """Tests clear the shared cache to reset the throttles; this process's reserved counts
    (core.throttling.ReservedCounts) go with it. A deployment never resets its counters."""
    from core.throttling import reserved_counts

    reserved_counts.forget()


@pytest.fixture(autouse=True)
def sessions_are_the_webs() -> None:
    """A Celery worker started inside a test process (``worker_init``) makes that whole process
    a worker's (core/postgresql/session.py, the worker's timeouts); the next test is the web's
    again, as in a deployment where a worker is a process of its own."""
    from core.postgresql import session

    session.use("web")


@pytest.fixture
def player(db: None) -> Callable[..., Player]:
    """Make a registered player with a token: ``player()`` or ``player("alice")``."""
    return make_player


@pytest.fixture
def alice(player: Callable[..., Player]) -> Player:
    return player("alice")


@pytest.fixture
def bob(player: Callable[..., Player]) -> Player:
    return player("bob")


@pytest.fixture
def carol(player: Callable[..., Player]) -> Player:
    return player("carol")


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``rates(login="2/hour")``: lower some scopes for one test, counters cleared around it."""
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    def lower(**scopes: str) -> None:
        merged = {**SimpleRateThrottle.THROTTLE_RATES, **scopes}
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", merged)

    cache.clear()
    yield lower
    cache.clear()
