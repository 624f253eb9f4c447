"""Serve Facedown on the embedded default: the whole site on uvicorn (the ASGI server, so the
live streams and the long-poll work too), plus the worker thread that plays bots and enforces
deadlines (no Redis, no Celery). Events reach the streams through the in-process bus."""

from __future__ import annotations

from typing import Any

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connections

from games.embedded import worker


class Command(BaseCommand):
    help = "Run the web server (ASGI: API, web client, streams) with the embedded worker."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args: Any, addrport: str, **options: Any) -> None:
        host, _, port = addrport.rpartition(":")
        # Each ASGI request runs its synchronous part on a thread of its own: no connection
        # may outlive its request (config/asgi.py says the same for other servers).
        for alias in connections:
            connections[alias].settings_dict["CONN_MAX_AGE"] = 0
        if settings.FACEDOWN_TASK_RUNNER == "embedded":
            worker.start()
        try:
            uvicorn.run(
                "config.asgi:application",
                host=host or "127.0.0.1",
                port=int(port),
                log_level="warning",
                # Its lines would carry each stream's ?ticket=; the project's access log has
                # every request (live/limits.py for the streams and long-polls).
                access_log=False,
                # Open streams must not hold a stop: they are told to go, and reconnect.
                timeout_graceful_shutdown=2,
            )
        finally:
            worker.stop()
