"""Print the public half of a receipt-signing key (docs/deployment.md, "Keys").

    python manage.py signing_public_key                  # the key this deployment signs with
    python manage.py signing_public_key --file OLD_KEY   # a key file, e.g. the one retired

Prints the 64 hex characters of the Ed25519 public key (what ``FACEDOWN_SIGNING_OLD_PUBLIC_KEYS``
lists after a rotation); ``--verbose 2`` adds its ``key_id``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from games.signing import key_from_hex, signing_key


class Command(BaseCommand):
    help = "Print the public key of the configured receipt-signing key (or of --file)."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--file", type=Path, help="a private key file instead of the setting")

    def handle(self, *args: Any, file: Path | None, verbosity: int, **options: Any) -> None:
        try:
            key = (
                key_from_hex(file.read_text(encoding="ascii", errors="replace"))
                if file
                else signing_key()
            )
        except (OSError, ImproperlyConfigured) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(key.public_key)
        if verbosity > 1:
            self.stdout.write(f"key_id: {key.key_id}")
