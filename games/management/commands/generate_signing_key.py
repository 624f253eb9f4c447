"""Make a new Ed25519 receipt-signing key (docs/deployment.md, "Keys").

    python manage.py generate_signing_key --file secrets/signing_key
    python manage.py generate_signing_key > secrets/signing_key

With ``--file`` the private key is written there (mode 0600; an existing file is never
overwritten); without, its 64 hex characters are the only thing on stdout. The public key and
its ``key_id`` go to stderr either way, for ``FACEDOWN_SIGNING_OLD_PUBLIC_KEYS`` later.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management.base import BaseCommand, CommandError

from games.signing import key_from_hex


class Command(BaseCommand):
    help = "Generate a receipt-signing key pair (Ed25519): the private key hex and its public key."
    # It makes the key a deployment lacks, so the check that it is there must not stop it.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--file", type=Path, help="write the private key to this new file")

    def handle(self, *args: Any, file: Path | None, **options: Any) -> None:
        private = Ed25519PrivateKey.generate().private_bytes_raw().hex()
        key = key_from_hex(private)
        if file is None:
            self.stdout.write(private)
        else:
            try:
                handle = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except OSError as exc:
                raise CommandError(f"{file}: {exc.strerror}; an existing key is kept") from exc
            with os.fdopen(handle, "w", encoding="ascii") as out:
                out.write(private + "\n")
        self.stderr.write(f"public_key: {key.public_key}\nkey_id: {key.key_id}")
