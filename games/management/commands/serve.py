"""Serve Facedown on the embedded default: the development server plus the worker thread that
plays bots and enforces deadlines (no Redis, no Celery)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from games.embedded import worker


class Command(BaseCommand):
    help = "Run the web server with the embedded bot and deadline worker."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args: Any, addrport: str, **options: Any) -> None:
        if settings.FACEDOWN_TASK_RUNNER == "embedded":
            worker.start()
        try:
            call_command("runserver", addrport, use_reloader=False)
        finally:
            worker.stop()
