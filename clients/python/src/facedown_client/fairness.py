"""Commitments and receipt signatures, computed by the client itself (docs/fairness.md §5-§7).

Written from the specification, not from the server's code, so a client checks the server
with an implementation of its own; the test vectors of docs/fairness.md §9 pin every value.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from facedown_client.types import FairnessKey

MOVE_PREFIX = "facedown-move-v1"
RECEIPT_PREFIX = "facedown-receipt-v1"
SIGNATURE_PREFIX = "facedown-receipt-sig-v1|"


def canonical_json(value: Any) -> str:
    """Keys sorted, no whitespace, non-ASCII as itself: the one form every hash covers."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def new_salt() -> str:
    """A commitment salt: 64 hex characters (the server takes 32 to 128), from the OS's CSPRNG
    so nobody can try the few legal moves against a commitment."""
    return secrets.token_hex(32)


def commitment_hash(match_id: str, step: int, seat: int, move: Any, salt: str) -> str:
    """``hex(SHA-256("facedown-move-v1|match|step|seat|canonical move|salt"))``."""
    message = f"{MOVE_PREFIX}|{match_id}|{step}|{seat}|{canonical_json(move)}|{salt}"
    return hashlib.sha256(message.encode()).hexdigest()


def receipt_digest(match_id: str, step: int, seat: int, submission: Any, salt: str) -> str:
    """The digest a receipt carries for ``submission``, given the receipt salt the transcript
    publishes after the match."""
    message = f"{RECEIPT_PREFIX}|{match_id}|{step}|{seat}|{canonical_json(submission)}|{salt}"
    return hashlib.sha256(message.encode()).hexdigest()


def key_id_of(public_key_hex: str) -> str:
    """First 16 hex characters of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


def signature_message(receipt: Mapping[str, Any]) -> bytes:
    """What ``sig`` signs: the prefix and the canonical receipt without ``sig``."""
    unsigned = {name: value for name, value in receipt.items() if name != "sig"}
    return (SIGNATURE_PREFIX + canonical_json(unsigned)).encode()


def trusted_keys(key: FairnessKey | Mapping[str, Any] | str) -> dict[str, str]:
    """key_id → public key hex, from ``GET /fairness/key`` (current and retired keys) or from
    one public key in hex."""
    if isinstance(key, str):
        return {key_id_of(key): key.lower()}
    keys = {key_id_of(str(key["public_key"])): str(key["public_key"]).lower()}
    for old in key.get("old_keys") or []:
        keys.setdefault(key_id_of(str(old["public_key"])), str(old["public_key"]).lower())
    return keys


def verify_receipt(receipt: Mapping[str, Any], key: FairnessKey | Mapping[str, Any] | str) -> bool:
    """Whether ``receipt`` carries a valid Ed25519 signature by the key its ``key_id`` names,
    that key being one of ``key`` (the ``/fairness/key`` answer, or a public key's hex).

    The key id is recomputed from each trusted public key rather than read from the server's
    answer, so a receipt naming a key the client was not given never verifies."""
    public = trusted_keys(key).get(str(receipt.get("key_id")))
    sig = receipt.get("sig")
    if public is None or not isinstance(sig, str):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(
            bytes.fromhex(sig), signature_message(receipt)
        )
    except (ValueError, InvalidSignature):
        return False
    return True
