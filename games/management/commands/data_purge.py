"""Run the periodic purge now (docs/data.md, "Retention")."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand

from games.services.purge import PARTS, data_purge


class Command(BaseCommand):
    help = (
        "Delete expired idempotency records and sessions, and archive the matches over for "
        "more than FACEDOWN_ARCHIVE_AFTER_DAYS, as the periodic job does. Prints the counts."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--only", choices=PARTS, action="append", help="run only this part (repeatable)"
        )
        parser.add_argument(
            "--archive-limit", type=int, default=1000, help="at most this many matches archived"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        parts = tuple(options["only"] or PARTS)
        done = data_purge(parts=parts, archive_limit=options["archive_limit"])
        self.stdout.write(json.dumps(done))
