"""The production worker class (config/gunicorn_worker.py) leaves a connection to an idle
worker while its own thread is busy, so keep-alive connections opened at the same moment are
spread over the workers instead of queueing behind one (docs/benchmarks-history.md: one worker was
measured doing all the work of 16 players while three idled).

Real gunicorn with config/gunicorn.conf.py, two single-threaded workers, a WSGI application that
answers after 0.3 s with its worker's pid; four keep-alive clients each send two requests at once.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.deployment.gunicorn_process import gunicorn
from tests.faults.conftest import wait_for

# Timed (about 1.2 s, under 2.1) and about which worker is idle: alone on the machine.
pytestmark = pytest.mark.serial


def _answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/")
        return connection.getresponse().status == 200
    except OSError:
        return False


def test_simultaneous_keep_alive_clients_are_spread_over_the_workers(tmp_path: Path) -> None:
    settings = {"WEB_CONCURRENCY": "2", "GUNICORN_THREADS": "1", "GUNICORN_KEEPALIVE": "30"}
    with gunicorn("tests.deployment.slow_wsgi:application", tmp_path, **settings) as port:
        wait_for(lambda: _answers(port), 20, "gunicorn to answer")
        time.sleep(1)  # both workers up
        served: list[str] = []
        barrier = threading.Barrier(4)

        def client() -> None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            barrier.wait()
            for _ in range(2):  # the same keep-alive connection twice
                connection.request("GET", "/")
                served.append(connection.getresponse().read().decode())

        threads = [threading.Thread(target=client) for _ in range(4)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        took = time.monotonic() - start
    assert len(served) == 8
    per_worker = Counter(served)
    assert len(per_worker) == 2, per_worker
    assert sorted(per_worker.values()) == [4, 4], per_worker
    # 8 requests of 0.3 s on two workers in parallel: about 1.2 s, not 2.4 s behind one worker.
    assert took < 2.1, took


def test_the_worker_tells_the_arbiter_it_lives_at_most_once_a_second() -> None:
    """gunicorn's loop calls ``notify`` on every turn (a ``utime`` per request at load); the
    arbiter only compares it with ``timeout``. Checked on gunicorn's real temporary file."""
    from gunicorn.config import Config
    from gunicorn.workers.workertmp import WorkerTmp

    from config.gunicorn_worker import NOTIFY_EVERY, BalancedThreadWorker

    worker = object.__new__(BalancedThreadWorker)  # its file and clock only, no sockets
    worker.tmp, worker.timeout, worker.notified = WorkerTmp(Config()), 30, -NOTIFY_EVERY
    try:
        worker.notify()
        first = worker.tmp.last_update()
        time.sleep(0.05)
        for _ in range(100):  # a busy loop's turns within the second
            worker.notify()
        assert worker.tmp.last_update() == first
        worker.notified -= NOTIFY_EVERY  # a second later
        worker.notify()
        assert worker.tmp.last_update() > first
        worker.timeout, worker.notified = 2, time.monotonic() - 0.6  # a short timeout: ¼ of it
        worker.notify()
        assert time.monotonic() - worker.notified < 0.1
    finally:
        worker.tmp.close()
