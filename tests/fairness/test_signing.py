"""Receipts are signed with the server's Ed25519 key; the key is published; rotation works."""

from __future__ import annotations

import stat

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from rest_framework.test import APIClient

from games import verify
from games.models import Move
from games.signing import (
    key_from_hex,
    public_keys,
    receipt_signature_valid,
    signature_message,
    signing_key,
)
from tests.fairness.helpers import audit
from tests.players import API, play_to_end, start_match

OLD_KEY = "11" * 32
NEW_KEY = "22" * 32


def fresh_key() -> str:
    return Ed25519PrivateKey.generate().private_bytes_raw().hex()


def test_receipts_carry_key_id_and_a_valid_signature(alice, bob):
    match_id = start_match("gops", [alice, bob])
    answer = alice.move(match_id, 1, {"card": 4})
    assert answer.status_code == 202
    receipt = answer.json()["receipt"]
    key = APIClient().get(f"{API}/fairness/key").json()
    assert receipt["key_id"] == key["key_id"] == signing_key().key_id
    assert len(receipt["sig"]) == 128
    assert verify.signature_valid(key["public_key"], receipt)
    assert receipt_signature_valid(receipt)
    # The stored receipt is the one handed out, and an identical re-post returns it again.
    assert Move.objects.get(match_id=match_id, step=1, seat=0).receipt == receipt
    assert alice.move(match_id, 1, {"card": 4}).json()["receipt"] == receipt
    # Every signed field is covered: changing any of them breaks the signature.
    for field, value in [("digest", "0" * 64), ("version", 99), ("seat", 1), ("step", 2)]:
        assert not verify.signature_valid(key["public_key"], {**receipt, field: value})
    assert not verify.signature_valid(key["public_key"], {**receipt, "key_id": "0" * 16})


def test_signature_covers_the_documented_message(alice, bob):
    match_id = start_match("gops", [alice, bob])
    receipt = bob.move(match_id, 1, {"card": 13}).json()["receipt"]
    unsigned = {k: v for k, v in receipt.items() if k != "sig"}
    assert set(unsigned) == {"match", "step", "seat", "digest", "version", "at", "key_id"}
    body = verify.canonical_json(unsigned)
    assert signature_message(receipt) == f"facedown-receipt-sig-v1|{body}".encode()
    Ed25519PublicKey.from_public_bytes(bytes.fromhex(signing_key().public_key)).verify(
        bytes.fromhex(receipt["sig"]), signature_message(receipt)
    )


def test_key_endpoint_is_public_and_serves_the_public_key(db):
    response = APIClient().get(f"{API}/fairness/key")
    assert response.status_code == 200
    body = response.json()
    assert body["algorithm"] == "ed25519"
    assert body["public_key"] == signing_key().public_key
    assert len(body["public_key"]) == 64 and int(body["public_key"], 16) >= 0
    assert body["key_id"] == verify.key_id_of(body["public_key"])
    assert body["old_keys"] == []


def test_a_rotated_key_still_verifies_old_receipts(alice, bob):
    old, new = key_from_hex(OLD_KEY), key_from_hex(NEW_KEY)
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    with override_settings(FACEDOWN_SIGNING_KEY=OLD_KEY):
        old_receipt = alice.move(match_id, 1, {"card": 1}).json()["receipt"]
        bob.move(match_id, 1, {"card": 2})
    assert old_receipt["key_id"] == old.key_id

    with override_settings(FACEDOWN_SIGNING_KEY=NEW_KEY, FACEDOWN_SIGNING_OLD_PUBLIC_KEYS=[]):
        # Without the retired key listed, the old receipt no longer verifies.
        assert not receipt_signature_valid(old_receipt)

    with override_settings(
        FACEDOWN_SIGNING_KEY=NEW_KEY, FACEDOWN_SIGNING_OLD_PUBLIC_KEYS=[old.public_key]
    ):
        new_receipt = alice.move(match_id, 2, {"card": 2}).json()["receipt"]
        assert new_receipt["key_id"] == new.key_id
        assert receipt_signature_valid(old_receipt) and receipt_signature_valid(new_receipt)
        assert public_keys() == {new.key_id: new.public_key, old.key_id: old.public_key}
        body = APIClient().get(f"{API}/fairness/key").json()
        assert body["key_id"] == new.key_id
        assert body["old_keys"] == [{"key_id": old.key_id, "public_key": old.public_key}]

        play_to_end(match_id, [alice, bob])
        transcript = audit(alice, match_id)
        assert transcript["key_id"] == new.key_id
        assert transcript["public_keys"] == {
            new.key_id: new.public_key,
            old.key_id: old.public_key,
        }
        assert verify.verify_transcript(transcript).ok
        pinned = verify.verify_transcript(transcript, public_keys=[old.public_key, new.public_key])
        assert pinned.ok, pinned.verdict()
        assert pinned.keys_used == {old.key_id, new.key_id}
        only_new = verify.verify_transcript(transcript, public_keys=[new.public_key])
        assert not only_new.ok
        assert f"step 1 seat 0: receipt signed by unknown key '{old.key_id}'" in only_new.problems


def test_embedded_default_generates_a_private_key_file(tmp_path):
    path = tmp_path / "var" / "signing-key"
    embedded = {"FACEDOWN_SIGNING_KEY_GENERATE": True}
    with override_settings(FACEDOWN_SIGNING_KEY="", FACEDOWN_SIGNING_KEY_FILE=path, **embedded):
        key = signing_key()
        assert path.exists()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert key_from_hex(path.read_text()).public_key == key.public_key
        assert signing_key() is key
        assert [p.name for p in path.parent.iterdir()] == ["signing-key"]
    # Another process (an empty cache) reads the same key back.
    from games.signing import _load

    _load.cache_clear()
    with override_settings(FACEDOWN_SIGNING_KEY="", FACEDOWN_SIGNING_KEY_FILE=path, **embedded):
        assert signing_key().public_key == key.public_key


def test_production_never_generates_a_key(tmp_path):
    path = tmp_path / "signing-key"
    with (
        override_settings(FACEDOWN_SIGNING_KEY="", FACEDOWN_SIGNING_KEY_FILE=path),
        pytest.raises(ImproperlyConfigured, match=r"FACEDOWN_SIGNING_KEY_FILE=.*cannot be read"),
    ):
        signing_key()
    assert not path.exists()
    with (
        override_settings(FACEDOWN_SIGNING_KEY="", FACEDOWN_SIGNING_KEY_FILE=None),
        pytest.raises(ImproperlyConfigured, match="FACEDOWN_SIGNING_KEY"),
    ):
        signing_key()


def test_an_existing_key_file_is_used(tmp_path):
    private = fresh_key()
    path = tmp_path / "signing-key"
    path.write_text(private + "\n")
    with override_settings(FACEDOWN_SIGNING_KEY="", FACEDOWN_SIGNING_KEY_FILE=path):
        assert signing_key().public_key == key_from_hex(private).public_key


@pytest.mark.parametrize("bad", ["abc", "zz" * 32, "11" * 31])
def test_a_malformed_key_is_refused(bad):
    with override_settings(FACEDOWN_SIGNING_KEY=bad), pytest.raises(ImproperlyConfigured):
        signing_key()


def test_a_malformed_old_key_is_refused():
    with (
        override_settings(FACEDOWN_SIGNING_OLD_PUBLIC_KEYS=["abcd"]),
        pytest.raises(ImproperlyConfigured),
    ):
        public_keys()


def test_libsodium_signs_the_bytes_openssl_signs() -> None:
    # Receipts are signed by libsodium (faster); Ed25519 is deterministic, so the signature of
    # every message must equal OpenSSL's, which the verifier and older receipts rely on.
    for private_hex in (OLD_KEY, NEW_KEY, fresh_key()):
        key = key_from_hex(private_hex)
        openssl = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private_hex))
        assert key.public_key == openssl.public_key().public_bytes_raw().hex()
        for message in (b"", b"x", signature_message({"step": 1, "seat": 0, "é": "ü"}) * 7):
            assert key.sign(message) == openssl.sign(message).hex()
        assert "secret" not in repr(key)
