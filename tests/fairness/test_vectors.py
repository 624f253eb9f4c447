"""docs/fairness.md's test vectors: the constants here equal the document's, and both are
reproduced by the server's code and by the standalone verifier."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardgames.engines.rng import DealRng
from games import verify
from games.catalog import get_engine
from games.signing import key_from_hex
from games.signing import signature_message as server_signature_message

DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
SEED_SHA256 = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
MATCH_ID = "00000000-0000-0000-0000-000000000001"
CLIENT_SEEDS = ["alice", None]
BLOCK_0_MESSAGE = "facedown-rng-v1|00000000-0000-0000-0000-000000000001|alice||0"
BLOCK_0 = "76e4b22658b474c41e08be0fc3338928857376ad70cdaeee1f08ce15102b0423"
FIRST_U64 = [
    8567168268932248772,
    2164188595860244776,
    9616160116660088558,
    2236263804850340899,
    3117366383997553290,
    16852789854338313034,
    11529994387834015318,
    5790831528302095068,
]
RANDBELOW_52 = [4, 4, 34, 23, 18]
SHUFFLE_1_13 = [13, 11, 4, 8, 6, 9, 2, 3, 12, 10, 7, 1, 5]
HDG_2P_POINTS = [1, 8, 2, 7, -2, 10, -5, 6, -4, 9, 5, 3, 4, -1, -3]
HDG_2P_SEAT0_BIDS = [11, 1, 7, 2, 9, 15, 5, 3, 14, 13, 10, 6, 8, 4, 12]
HDG_2P_SEAT1_BIDS = [7, 8, 3, 12, 13, 1, 5, 10, 4, 15, 6, 2, 11, 14, 9]
COMMIT_STEP, COMMIT_SEAT, COMMIT_MOVE = 4, 1, {"card": 7}
COMMIT_SALT = "00112233445566778899aabbccddeeff"
COMMIT_MESSAGE = (
    "facedown-move-v1|00000000-0000-0000-0000-000000000001|4|1|"
    '{"card":7}|00112233445566778899aabbccddeeff'
)
COMMITMENT = "254186c3c422c681bfd368b893b6e8f73723a642ca5de091ae7a20f8cae2b455"
RECEIPT_SALT = "ffeeddccbbaa99887766554433221100"
RECEIPT_DIGEST = "4e4917ee8107a88d6a0b7be924a5147e99b0e39c95530456ed51c2014a328c82"
TEST_PRIVATE_KEY = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
TEST_PUBLIC_KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
TEST_KEY_ID = "21fe31dfa154a261"
RECEIPT_VERSION = 9
RECEIPT_AT = "2026-01-01T12:00:00Z"
SIGNATURE_MESSAGE = (
    'facedown-receipt-sig-v1|{"at":"2026-01-01T12:00:00Z",'
    '"digest":"4e4917ee8107a88d6a0b7be924a5147e99b0e39c95530456ed51c2014a328c82",'
    '"key_id":"21fe31dfa154a261","match":"00000000-0000-0000-0000-000000000001",'
    '"seat":1,"step":4,"version":9}'
)
SIGNATURE = (
    "32bf2ac019b7c997b1620267296175ac9be818fdf4ca54d9121b6844b09527fb"
    "dad4b0fc3a45581fe4fea2be6b92e70d960ce9316ce67fa22ab74f1f04e45404"
)

EXPECTED: dict[str, Any] = {
    "seed": SEED,
    "seed_sha256": SEED_SHA256,
    "match_id": MATCH_ID,
    "client_seeds": CLIENT_SEEDS,
    "block_0_message": BLOCK_0_MESSAGE,
    "block_0": BLOCK_0,
    "first_u64": FIRST_U64,
    "randbelow_52": RANDBELOW_52,
    "shuffle_1_13": SHUFFLE_1_13,
    "gops_2p_stock": SHUFFLE_1_13,
    "hdg_2p_points": HDG_2P_POINTS,
    "hdg_2p_seat0_bids": HDG_2P_SEAT0_BIDS,
    "hdg_2p_seat1_bids": HDG_2P_SEAT1_BIDS,
    "commit_step": COMMIT_STEP,
    "commit_seat": COMMIT_SEAT,
    "commit_move": COMMIT_MOVE,
    "commit_salt": COMMIT_SALT,
    "commit_message": COMMIT_MESSAGE,
    "commitment": COMMITMENT,
    "receipt_salt": RECEIPT_SALT,
    "receipt_digest": RECEIPT_DIGEST,
    "test_private_key": TEST_PRIVATE_KEY,
    "test_public_key": TEST_PUBLIC_KEY,
    "test_key_id": TEST_KEY_ID,
    "receipt_version": RECEIPT_VERSION,
    "receipt_at": RECEIPT_AT,
    "signature_message": SIGNATURE_MESSAGE,
    "signature": SIGNATURE,
}


def doc_vectors() -> dict[str, Any]:
    """The ``name = value`` lines of the block after ``<!-- test-vectors -->``; JSON values
    where they parse as JSON (lists, objects, numbers), else the text as it stands."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- test-vectors -->\s*```text\n(.*?)```", text, re.DOTALL)
    assert found, "docs/fairness.md has no test-vectors block"
    vectors: dict[str, Any] = {}
    for line in found.group(1).splitlines():
        if not line.strip():
            continue
        name, _, raw = line.partition("=")
        raw = raw.strip()
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        # 64-hex values made only of digits would parse as numbers: keep hex as text.
        vectors[name.strip()] = raw if isinstance(value, int) and len(raw) > 20 else value
    return vectors


def rng() -> DealRng:
    return DealRng(bytes.fromhex(SEED), MATCH_ID, CLIENT_SEEDS)


def unsigned_receipt() -> dict[str, Any]:
    return {
        "match": MATCH_ID,
        "step": COMMIT_STEP,
        "seat": COMMIT_SEAT,
        "digest": RECEIPT_DIGEST,
        "version": RECEIPT_VERSION,
        "at": RECEIPT_AT,
        "key_id": TEST_KEY_ID,
    }


def test_the_document_states_exactly_these_vectors() -> None:
    assert doc_vectors() == EXPECTED


def test_seed_hash() -> None:
    assert hashlib.sha256(bytes.fromhex(SEED)).hexdigest() == SEED_SHA256
    assert verify.seed_hash(SEED) == SEED_SHA256


def test_stream_block_and_integers() -> None:
    block = hmac.new(bytes.fromhex(SEED), BLOCK_0_MESSAGE.encode(), hashlib.sha256).digest()
    assert block.hex() == BLOCK_0
    assert [int.from_bytes(block[i : i + 8], "big") for i in range(0, 32, 8)] == FIRST_U64[:4]
    stream = rng()
    assert [stream.next_u64() for _ in range(8)] == FIRST_U64


def test_randbelow_and_shuffle() -> None:
    stream = rng()
    assert [stream.randbelow(52) for _ in range(5)] == RANDBELOW_52
    assert rng().shuffled(list(range(1, 14))) == SHUFFLE_1_13


def test_gops_deal() -> None:
    engine = get_engine("gops")
    assert engine is not None
    state = engine.initial_state(2, {}, rng())
    assert state["pot"] + state["stock"] == SHUFFLE_1_13


def test_hols_der_geier_two_player_deal() -> None:
    stream = rng()
    assert stream.shuffled(sorted(HDG_2P_POINTS)) == HDG_2P_POINTS
    assert stream.shuffled(list(range(1, 16))) == HDG_2P_SEAT0_BIDS
    assert stream.shuffled(list(range(1, 16))) == HDG_2P_SEAT1_BIDS
    engine = get_engine("hols-der-geier")
    assert engine is not None
    state = engine.initial_state(2, {}, rng())
    assert state["removed_points"] == sorted(HDG_2P_POINTS[:3])
    assert state["pot"] + state["stock"] == HDG_2P_POINTS[3:]
    assert state["removed_bids"] == [sorted(HDG_2P_SEAT0_BIDS[:3]), sorted(HDG_2P_SEAT1_BIDS[:3])]


def test_commitment() -> None:
    canonical = verify.canonical_json(COMMIT_MOVE)
    message = f"facedown-move-v1|{MATCH_ID}|{COMMIT_STEP}|{COMMIT_SEAT}|{canonical}|{COMMIT_SALT}"
    assert message == COMMIT_MESSAGE
    assert hashlib.sha256(message.encode()).hexdigest() == COMMITMENT
    assert (
        verify.commitment_hash(MATCH_ID, COMMIT_STEP, COMMIT_SEAT, COMMIT_MOVE, COMMIT_SALT)
        == COMMITMENT
    )


def test_receipt_digest() -> None:
    assert (
        verify.receipt_digest(MATCH_ID, COMMIT_STEP, COMMIT_SEAT, COMMIT_MOVE, RECEIPT_SALT)
        == RECEIPT_DIGEST
    )


def test_key_id_and_signature() -> None:
    key = key_from_hex(TEST_PRIVATE_KEY)
    assert key.public_key == TEST_PUBLIC_KEY
    assert key.key_id == TEST_KEY_ID == verify.key_id_of(TEST_PUBLIC_KEY)
    receipt = unsigned_receipt()
    assert verify.signature_message(receipt).decode() == SIGNATURE_MESSAGE
    assert server_signature_message(receipt).decode() == SIGNATURE_MESSAGE
    # Ed25519 is deterministic: the same key and message always give this signature.
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(TEST_PRIVATE_KEY))
    assert private.sign(SIGNATURE_MESSAGE.encode()).hex() == SIGNATURE
    assert key.sign(SIGNATURE_MESSAGE.encode()) == SIGNATURE
    assert verify.signature_valid(TEST_PUBLIC_KEY, {**receipt, "sig": SIGNATURE})
    assert not verify.signature_valid(TEST_PUBLIC_KEY, {**receipt, "version": 10, "sig": SIGNATURE})


@pytest.mark.parametrize("name", ["seed", "block_0", "commitment", "receipt_digest", "signature"])
def test_hex_vectors_are_lowercase(name: str) -> None:
    assert re.fullmatch(r"[0-9a-f]+", EXPECTED[name])
