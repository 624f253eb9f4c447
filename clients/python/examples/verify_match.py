"""Check every receipt of a finished match's transcript against the server's signing key.

    FACEDOWN_URL=… FACEDOWN_TOKEN=fdp_… python examples/verify_match.py MATCH_ID [--public-key HEX]

Pin the key (``--public-key``, from a source you trust) rather than read it from the server
you are checking, when you can. The full check (re-deal, replay) is the server project's
``facedown-verify``; this one needs nothing but this package.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from facedown_client import Client


def receipts_of(transcript: dict[str, Any]) -> list[dict[str, Any]]:
    """Every receipt of the transcript (a seat's entry is a list under commit-reveal)."""
    found: list[dict[str, Any]] = []
    for step in transcript["steps"]:
        for entry in step["receipts"]:
            if isinstance(entry, list):
                found.extend(entry)
            elif entry is not None:
                found.append(entry)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("match_id")
    parser.add_argument("--public-key", help="the server's Ed25519 public key, hex")
    arguments = parser.parse_args()
    client = Client.from_env()  # FACEDOWN_URL, FACEDOWN_TOKEN (or FACEDOWN_TOKEN_FILE)
    key: Any = arguments.public_key or client.fairness_key()
    receipts = receipts_of(client.matches.audit(arguments.match_id))
    bad = [r for r in receipts if not client.verify_receipt(r, key)]
    for receipt in bad:
        print(f"FAILED: step {receipt['step']} seat {receipt['seat']}: signature does not hold")
    print(f"{len(receipts) - len(bad)}/{len(receipts)} receipts verify")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
