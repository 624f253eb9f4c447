from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone

from games import dispatch
from notify.dispatch import register_channel, unregister_channel
from notify.kinds import Notification
from notify.preferences import settings_of


class Recorder(list[Notification]):
    """A channel that keeps what it was handed."""

    def deliver(self, notifications: Sequence[Notification]) -> None:
        self.extend(notifications)

    def of(self, user_id: int) -> list[tuple[str, int | None]]:
        return [(n.type, n.data.get("step")) for n in self if n.user_id == user_id]


@pytest.fixture
def recorded() -> Iterator[Recorder]:
    recorder = Recorder()
    register_channel("test-recorder", recorder.deliver)
    yield recorder
    unregister_channel("test-recorder")


class Jobs(list[tuple[str, tuple[Any, ...], datetime]]):
    """Jobs the inline runner was handed for later (with an ETA in the future)."""

    def run_due(self) -> int:
        """Run every job whose time has come, as the runner would; returns how many ran."""
        due = [job for job in self if job[2] <= timezone.now()]
        for job in due:
            self.remove(job)
            dispatch.job(job[0])(*job[1])
        return len(due)


@pytest.fixture
def jobs(settings: Any) -> Jobs:
    """Run jobs in the calling thread as soon as they are enqueued (the task runner's own
    behaviour is tested in tests/worker); those with a future ETA wait in the returned list."""
    later = Jobs()

    def run(name: str, args: tuple[Any, ...], eta: datetime | None) -> None:
        if eta is not None and eta > timezone.now():
            later.append((name, args, eta))
        else:
            dispatch.job(name)(*args)

    dispatch.runner_register("inline-test", run)
    settings.FACEDOWN_TASK_RUNNER = "inline-test"
    return later


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class LocalServer:
    """A real HTTP server on 127.0.0.1 in a thread: records each POST and answers with the next
    status of ``statuses`` (the last one repeats)."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.received: list[Received] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.received.append(Received(self.path, headers, body))
                status = outer.statuses.pop(0) if len(outer.statuses) > 1 else outer.statuses[0]
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Callable[..., LocalServer]]:
    started: list[LocalServer] = []

    def start(statuses: list[int] | None = None) -> LocalServer:
        started.append(LocalServer(statuses or [200]))
        return started[-1]

    yield start
    for one in started:
        one.close()


def verify(user: Any) -> None:
    """Mark ``user``'s current address as verified (as opening the mailed link does)."""
    prefs = settings_of(user.pk)
    prefs.verified_email = user.email
    prefs.save()
