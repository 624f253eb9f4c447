"""Seeds, the deal stream of a match, and signed move receipts (docs/design.md, "Fairness";
docs/fairness.md gives every format)."""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import datetime
from typing import Any

from cardgames.engines.rng import DealRng
from games.events import timestamp
from games.models import Match, Seat
from games.signing import receipt_sign

CLIENT_SEED_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


def seed_new() -> tuple[str, str]:
    """A fresh 32-byte seed as lowercase hex, and the SHA-256 of its raw bytes."""
    seed = secrets.token_bytes(32)
    return seed.hex(), hashlib.sha256(seed).hexdigest()


def deal_rng(match: Match, seats: list[Seat]) -> DealRng:
    return DealRng(bytes.fromhex(match.seed), str(match.id), [seat.client_seed for seat in seats])


def canonical_json(value: Any) -> str:
    """Keys sorted, no whitespace: the form every digest and commitment is computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def receipt_make(
    *,
    match: Match,
    step: int,
    seat: int,
    submission: Any,
    version: int,
    at: datetime,
    kind: str | None = None,
) -> tuple[dict[str, Any], str]:
    """A signed receipt for an accepted submission, and the server salt that keeps it
    irreversible. ``key_id`` names the signing key; ``sig`` is the hex Ed25519 signature of
    ``facedown-receipt-sig-v1|`` + the canonical JSON of the receipt without ``sig``."""
    salt = secrets.token_hex(16)
    message = f"facedown-receipt-v1|{match.id}|{step}|{seat}|{canonical_json(submission)}|{salt}"
    receipt = {
        "match": str(match.id),
        "step": step,
        "seat": seat,
        "digest": hashlib.sha256(message.encode()).hexdigest(),
        "version": version,
        "at": timestamp(at),
    }
    if kind is not None:
        # commit-reveal: "commitment" covers {"commitment": …}, "reveal" {"move": …, "salt": …}
        receipt["kind"] = kind
    return receipt_sign(receipt), salt


def commitment_of(*, match_id: str, step: int, seat: int, move: Any, salt: str) -> str:
    """The commitment a seat publishes before revealing ``move`` (docs/fairness.md)."""
    message = f"facedown-move-v1|{match_id}|{step}|{seat}|{canonical_json(move)}|{salt}"
    return hashlib.sha256(message.encode()).hexdigest()
