"""The key rotation of docs/deployment.md ("Keys"), step by step, as an operator runs it.

Keys are files made by ``manage.py generate_signing_key`` and given to the server as a mounted
secret (``FACEDOWN_SIGNING_KEY_FILE``); the retired key's public half, printed by
``manage.py signing_public_key``, goes into ``FACEDOWN_SIGNING_OLD_PUBLIC_KEYS``. Transcripts of
matches finished before and after the rotation verify, with the standalone verifier, against
the keys ``GET /fairness/key`` publishes.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from games import verify
from tests.fairness.helpers import audit, finished_match, run_cli
from tests.players import API


def generate(path: Path) -> None:
    call_command("generate_signing_key", file=path, stderr=StringIO())


def public_key_of(path: Path) -> str:
    out = StringIO()
    call_command("signing_public_key", file=path, stdout=out)
    return out.getvalue().strip()


def published() -> list[str]:
    body: dict[str, Any] = APIClient().get(f"{API}/fairness/key").json()
    return [body["public_key"], *(old["public_key"] for old in body["old_keys"])]


def verified(transcript: dict[str, Any], keys: list[str]) -> verify.Report:
    return verify.verify_transcript(transcript, public_keys=keys)


def test_rotation_keeps_old_transcripts_verifiable(db: None, tmp_path: Path) -> None:
    key_a, key_b = tmp_path / "signing_key_a", tmp_path / "signing_key_b"
    generate(key_a)
    mounted = {"FACEDOWN_SIGNING_KEY": "", "FACEDOWN_SIGNING_KEY_GENERATE": False}

    # Before: key A signs everything.
    with override_settings(**mounted, FACEDOWN_SIGNING_KEY_FILE=key_a):
        before_id, before_players = finished_match("gops", 2, {"num_cards": 4}, seed=1)
        before = audit(before_players[0], before_id)
        assert published() == [public_key_of(key_a)]

    # 1. a new key; 2. every machine gets it, with A's public key listed as retired.
    generate(key_b)
    retired_a = public_key_of(key_a)
    with override_settings(
        **mounted, FACEDOWN_SIGNING_KEY_FILE=key_b, FACEDOWN_SIGNING_OLD_PUBLIC_KEYS=[retired_a]
    ):
        keys = published()
        assert keys == [public_key_of(key_b), retired_a]
        after_id, players = finished_match("gops", 2, {"num_cards": 4}, seed=2)
        after = audit(players[0], after_id)
        assert after["key_id"] == verify.key_id_of(public_key_of(key_b))
        # A's transcript, audited again after the rotation, still verifies.
        again = audit(before_players[0], before_id)
        assert again["key_id"] == verify.key_id_of(retired_a)
        for transcript in (again, after):
            result = verified(transcript, keys)
            assert result.ok, result.verdict()
        # The command-line verifier, pinned to what /fairness/key publishes.
        saved = tmp_path / "before.json"
        saved.write_text(json.dumps(before))
        pins = [arg for key in keys for arg in ("--public-key", key)]
        cli = run_cli(saved, *pins)
        assert cli.returncode == 0, cli.stdout + cli.stderr

    # Dropping A from the list too early is what breaks old transcripts: never do it while
    # they must verify.
    with override_settings(**mounted, FACEDOWN_SIGNING_KEY_FILE=key_b):
        assert not verified(before, published()).ok
        assert verified(after, published()).ok
