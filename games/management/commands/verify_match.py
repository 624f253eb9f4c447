"""Build a finished match's transcript from the database and check it like ``games.verify``."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.errors import FacedownError
from games.services.audit import audit_transcript
from games.signing import public_keys
from games.verify import verify_transcript


class Command(BaseCommand):
    help = (
        "Check a finished or aborted match end to end (seed, deal, receipts, signatures, "
        "commitments, replay, result), as `python -m games.verify` does with a downloaded "
        "transcript. Exits 1 with the list of problems when anything does not match."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("match_id")
        parser.add_argument(
            "--output", metavar="FILE", help="also write the transcript to FILE (JSON)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            transcript = audit_transcript(match_id=uuid.UUID(options["match_id"]))
        except ValueError as exc:
            raise CommandError(f"not_found: {options['match_id']!r} is not a match id") from exc
        except FacedownError as exc:
            raise CommandError(f"{exc.code}: {exc.detail}") from exc
        if options.get("output"):
            with open(options["output"], "w", encoding="utf-8") as out:
                json.dump(transcript, out, indent=1, ensure_ascii=False)
        # The server's own keys, current and retired, are the trusted ones here.
        report = verify_transcript(transcript, public_keys=public_keys().values())
        if not report.ok:
            raise CommandError(report.verdict())
        self.stdout.write(report.verdict())
