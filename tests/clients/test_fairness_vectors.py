"""The client's own commitment and signature code against docs/fairness.md's test vectors."""

from __future__ import annotations

import re
from pathlib import Path

from facedown_client.fairness import (
    commitment_hash,
    key_id_of,
    receipt_digest,
    signature_message,
    verify_receipt,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def _vectors() -> dict[str, str]:
    block = DOC.read_text().split("<!-- test-vectors -->", 1)[1].split("```text", 1)[1]
    block = block.split("```", 1)[0]
    return dict(
        (match.group(1), match.group(2).strip())
        for match in re.finditer(r"^(\w+)\s*=\s*(.*)$", block, re.MULTILINE)
    )


def test_commitment_and_digest_match_the_vectors() -> None:
    v = _vectors()
    step, seat = int(v["commit_step"]), int(v["commit_seat"])
    move = {"card": 7}
    assert v["commit_move"] == '{"card": 7}'
    assert commitment_hash(v["match_id"], step, seat, move, v["commit_salt"]) == v["commitment"]
    digest = receipt_digest(v["match_id"], step, seat, move, v["receipt_salt"])
    assert digest == v["receipt_digest"]


def test_the_vector_receipt_verifies_and_a_changed_one_does_not() -> None:
    v = _vectors()
    receipt = {
        "match": v["match_id"],
        "step": int(v["commit_step"]),
        "seat": int(v["commit_seat"]),
        "digest": v["receipt_digest"],
        "version": int(v["receipt_version"]),
        "at": v["receipt_at"],
        "key_id": v["test_key_id"],
        "sig": v["signature"],
    }
    assert key_id_of(v["test_public_key"]) == v["test_key_id"]
    assert signature_message(receipt).decode() == v["signature_message"]
    assert verify_receipt(receipt, v["test_public_key"])
    key = {
        "key_id": "whatever",
        "public_key": "00" * 32,
        "old_keys": [{"key_id": v["test_key_id"], "public_key": v["test_public_key"]}],
    }
    assert verify_receipt(receipt, key)  # a retired key still verifies its receipts
    assert not verify_receipt(receipt | {"version": 10}, v["test_public_key"])
    assert not verify_receipt(receipt | {"sig": "00" * 64}, v["test_public_key"])
    assert not verify_receipt(receipt, "11" * 32)  # a key the receipt does not name
