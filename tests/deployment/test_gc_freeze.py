"""gunicorn's workers start with what the master loaded frozen out of the garbage collector's
reach (config/gunicorn.conf.py, ``pre_fork``): a full collection in a worker then visits only
the worker's own objects. Real gunicorn with the production configuration."""

from __future__ import annotations

import http.client
from pathlib import Path

from tests.deployment.gunicorn_process import gunicorn
from tests.faults.conftest import wait_for


def _frozen(port: int) -> int | None:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/")
        return int(connection.getresponse().read())
    except OSError:
        return None


def test_a_worker_starts_with_the_preloaded_objects_frozen(tmp_path: Path) -> None:
    with gunicorn("tests.deployment.gc_wsgi:application", tmp_path, WEB_CONCURRENCY="1") as port:
        wait_for(lambda: _frozen(port) is not None, 20, "gunicorn to answer")
        frozen = _frozen(port)
    # The master's interpreter and gunicorn alone are tens of thousands of objects; without
    # the hook nothing is frozen.
    assert frozen is not None and frozen > 10_000, frozen
