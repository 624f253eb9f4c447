"""The server's Ed25519 receipt-signing key (docs/fairness.md, "Signatures" and "Keys").

Where the key comes from, first match wins:

1. ``settings.FACEDOWN_SIGNING_KEY`` (env ``FACEDOWN_SIGNING_KEY``): 64 hex characters, the
   raw 32-byte Ed25519 private key.
2. The file ``settings.FACEDOWN_SIGNING_KEY_FILE`` (env ``FACEDOWN_SIGNING_KEY_FILE``, e.g. a
   mounted secret under ``/run/secrets/``) holding those 64 hex characters. Only where
   ``settings.FACEDOWN_SIGNING_KEY_GENERATE`` (the embedded mode and DEBUG, whose default file
   is ``<VAR_DIR>/signing-key``) is a missing file created with a new key, mode 0600: a
   production process never makes up a key of its own, which the others would not share.

Rotation (docs/deployment.md, "Keys"): put the retired key's public key (64 hex characters) in
``settings.FACEDOWN_SIGNING_OLD_PUBLIC_KEYS`` (env, comma separated) so receipts it signed keep
verifying; ``key_id`` (first 16 hex characters of SHA-256 of the raw public key) says which key
signed a receipt.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from nacl.bindings import crypto_sign, crypto_sign_seed_keypair

ALGORITHM = "ed25519"
SIGNATURE_PREFIX = "facedown-receipt-sig-v1|"


@dataclass(frozen=True)
class SigningKey:
    #: Raw 32-byte public key, lowercase hex.
    public_key: str
    key_id: str
    #: The private key as libsodium holds it (seed and public key): every move signs a receipt,
    #: and libsodium signs faster than OpenSSL (through ``cryptography``, which verifies).
    #: Ed25519 signatures are deterministic (RFC 8032): both write the same
    #: bytes (tests/fairness/test_signing.py).
    secret: bytes = field(repr=False)

    def sign(self, message: bytes) -> str:
        return crypto_sign(message, self.secret)[:64].hex()


def key_id_of(public_key_hex: str) -> str:
    """First 16 lowercase hex characters of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


def signature_message(receipt: Mapping[str, Any]) -> bytes:
    """UTF-8 of the prefix and the canonical JSON of the receipt without ``sig``."""
    unsigned = {key: value for key, value in receipt.items() if key != "sig"}
    body = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (SIGNATURE_PREFIX + body).encode()


def key_from_hex(private_hex: str) -> SigningKey:
    try:
        raw = bytes.fromhex(private_hex.strip())
        if len(raw) != 32:
            raise ValueError("not 32 bytes")
    except ValueError as exc:
        raise ImproperlyConfigured(
            "The receipt-signing key (FACEDOWN_SIGNING_KEY, or the file FACEDOWN_SIGNING_KEY_FILE "
            "names) must be 64 hex characters: a raw Ed25519 private key."
        ) from exc
    public, secret = crypto_sign_seed_keypair(raw)
    public_hex = public.hex()
    return SigningKey(public_key=public_hex, key_id=key_id_of(public_hex), secret=secret)


def signing_key() -> SigningKey:
    """The key that signs new receipts (cached per process and per setting)."""
    configured = str(getattr(settings, "FACEDOWN_SIGNING_KEY", "") or "")
    path = getattr(settings, "FACEDOWN_SIGNING_KEY_FILE", None)
    generate = bool(getattr(settings, "FACEDOWN_SIGNING_KEY_GENERATE", False))
    return _load(configured, str(path) if path else "", generate)


@functools.lru_cache(maxsize=8)
def _load(configured: str, path: str, generate: bool) -> SigningKey:
    if configured:
        return key_from_hex(configured)
    if not path:
        raise ImproperlyConfigured(
            "No receipt-signing key: set FACEDOWN_SIGNING_KEY (64 hex characters) or "
            "FACEDOWN_SIGNING_KEY_FILE (a file holding them), the same on every machine."
        )
    if generate:
        return key_from_hex(_read_or_create(Path(path)))
    try:
        return key_from_hex(Path(path).read_text(encoding="ascii", errors="replace"))
    except OSError as exc:
        raise ImproperlyConfigured(
            f"FACEDOWN_SIGNING_KEY_FILE={path} cannot be read ({exc.strerror}); production "
            "never generates a key of its own."
        ) from exc


def _read_or_create(path: Path) -> str:
    """The key file's hex; a new key is written atomically with mode 0600 if there is none."""
    with contextlib.suppress(FileNotFoundError):
        return path.read_text(encoding="ascii").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = Ed25519PrivateKey.generate().private_bytes_raw().hex()
    # mkstemp creates the file with mode 0600; link() never overwrites a key another process
    # wrote first, and the file is complete before its name appears.
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".signing-key-")
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(fresh + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
    return path.read_text(encoding="ascii").strip()


def public_keys() -> dict[str, str]:
    """Every key a receipt of this server may be signed with: key_id → public key hex (the
    current key first, then the retired ones)."""
    current = signing_key()
    keys = {current.key_id: current.public_key}
    for public in getattr(settings, "FACEDOWN_SIGNING_OLD_PUBLIC_KEYS", None) or []:
        public = public.strip().lower()
        if len(public) != 64:
            raise ImproperlyConfigured(
                "FACEDOWN_SIGNING_OLD_PUBLIC_KEYS holds 64-hex-character Ed25519 public keys."
            )
        keys.setdefault(key_id_of(public), public)
    return keys


def receipt_sign(receipt: dict[str, Any]) -> dict[str, Any]:
    """The receipt with ``key_id`` and ``sig`` (hex Ed25519 signature) added."""
    current = signing_key()
    signed = {name: value for name, value in receipt.items() if name != "sig"}
    signed["key_id"] = current.key_id
    signed["sig"] = current.sign(signature_message(signed))
    return signed


def receipt_signature_valid(receipt: Mapping[str, Any]) -> bool:
    """Whether ``sig`` is a valid signature by the key ``key_id`` names (current or retired)."""
    public = public_keys().get(str(receipt.get("key_id")))
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
