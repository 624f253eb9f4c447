"""Web Push: subscriptions, the VAPID key, and a message that decrypts at a local endpoint with
the subscription's own keys."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.core.management import call_command

from notify.models import PushSubscription
from notify.push import vapid_keys_new
from tests.notify.conftest import Jobs, LocalServer
from tests.players import API, Player, start_match

GOPS3 = {"options": {"num_cards": 3}}


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """What a browser holds for one subscription: a P-256 key pair and an auth secret."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def keys(self) -> dict[str, str]:
        point = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return {"p256dh": b64(point), "auth": b64(self.auth)}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return dict(json.loads(plain))


def vapid_verifies(authorization: str, public_key: str) -> bool:
    """The push service's check of the VAPID header: ``vapid t=<JWT>, k=<public key>``."""
    scheme, _, rest = authorization.partition(" ")
    fields = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert scheme == "vapid" and fields["k"] == public_key
    head, payload, signature = fields["t"].split(".")
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key))
    key.verify(der, f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
    return True


@pytest.fixture
def vapid(settings: Any) -> str:
    private, public = vapid_keys_new()
    settings.FACEDOWN_VAPID_PRIVATE_KEY = private
    settings.FACEDOWN_VAPID_PUBLIC_KEY = public
    settings.FACEDOWN_WEBHOOK_ALLOW_PRIVATE = True
    return public


def test_a_your_move_message_decrypts_at_the_endpoint(
    vapid: str,
    jobs: Jobs,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],
    django_capture_on_commit_callbacks: Any,
) -> None:
    assert Player.get(alice, "/accounts/push-key").json() == {"public_key": vapid}
    local, browser = server([201]), Browser()
    answer = alice.post(
        "/accounts/me/push-subscriptions",
        {"endpoint": f"{local.url}/push/abc", "keys": browser.keys(), "expirationTime": None},
    )
    assert answer.status_code == 201, answer.content

    with django_capture_on_commit_callbacks(execute=True):
        match_id = start_match("gops", [alice, bob], **GOPS3)
    (received,) = local.received
    assert received.path == "/push/abc"
    assert received.headers["content-encoding"] == "aes128gcm"
    assert vapid_verifies(received.headers["authorization"], vapid)
    message = browser.decrypt(received.body)
    assert message["type"] == "your_move" and message["match"] == match_id
    assert message["url"] == f"/matches/{match_id}" and "gops" in message["body"]
    assert Browser().keys()["auth"] != browser.keys()["auth"]
    with pytest.raises(Exception):  # noqa: B017 - another browser's keys cannot read it
        Browser().decrypt(received.body)


def test_a_gone_subscription_is_dropped_and_a_deleted_one_gets_nothing(
    vapid: str,
    jobs: Jobs,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],
    django_capture_on_commit_callbacks: Any,
) -> None:
    gone, kept = server([410]), server([201])
    for local in (gone, kept):
        alice.post(
            "/accounts/me/push-subscriptions",
            {"endpoint": f"{local.url}/s", "keys": Browser().keys()},
        )
    with django_capture_on_commit_callbacks(execute=True):
        start_match("gops", [alice, bob], **GOPS3)
    assert len(gone.received) == len(kept.received) == 1
    (left,) = PushSubscription.objects.all()
    assert left.endpoint.startswith(kept.url)
    assert bob.client.delete(f"{API}/accounts/me/push-subscriptions/{left.pk}").status_code == 404
    assert alice.client.delete(f"{API}/accounts/me/push-subscriptions/{left.pk}").status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        start_match("gops", [alice, bob], **GOPS3)
    assert len(kept.received) == 1


def test_subscriptions_are_checked(settings: Any, alice: Player) -> None:
    keys = Browser().keys()
    inward = alice.post(
        "/accounts/me/push-subscriptions", {"endpoint": "http://127.0.0.1:1/push", "keys": keys}
    )
    assert inward.status_code == 400 and "endpoint" in inward.json()["errors"]
    settings.FACEDOWN_WEBHOOK_ALLOW_PRIVATE = True
    bad_key = alice.post(
        "/accounts/me/push-subscriptions",
        {
            "endpoint": "https://push.example/x",
            "keys": {**keys, "p256dh": b64(b"\x04" + b"1" * 64)},
        },
    )
    assert bad_key.status_code == 400 and "keys.p256dh" in bad_key.json()["errors"]


def test_the_key_command_prints_a_working_pair(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("vapid_keys")
    lines = dict(line.split("=", 1) for line in capsys.readouterr().out.split())
    private = int.from_bytes(unb64(lines["FACEDOWN_VAPID_PRIVATE_KEY"]), "big")
    derived = ec.derive_private_key(private, ec.SECP256R1()).public_key()
    point = derived.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert b64(point) == lines["FACEDOWN_VAPID_PUBLIC_KEY"]
