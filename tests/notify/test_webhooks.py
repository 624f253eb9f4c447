"""Webhooks: registration behind the SSRF guard, signed deliveries to a real local HTTP
server, retries with back-off, the delivery log, and disabling a hook that keeps failing."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from notify.models import Webhook, WebhookDelivery
from notify.ssrf import UnsafeTarget, target_check
from tests.leaks import alternatives
from tests.notify.conftest import Jobs, LocalServer, verify
from tests.players import API, Player, start_match

GOPS3 = {"options": {"num_cards": 3}}


def verify_signature(secret: str, header: str, body: bytes, tolerance: int = 300) -> bool:
    """The receiver's check, as docs/notifications.md and the README give it."""
    fields = dict(part.split("=", 1) for part in header.split(","))
    timestamp = int(fields["t"])
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    fresh = abs(time.time() - timestamp) <= tolerance
    return fresh and hmac.compare_digest(expected.hexdigest(), fields["v1"])


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0/hook",
        "ftp://example.com/hook",
        "http://user:pw@93.184.216.34/hook",
    ],
)
def test_the_guard_refuses_inward_targets_by_default(url: str) -> None:
    with pytest.raises(UnsafeTarget):
        target_check(url)


def test_the_guard_lets_a_public_address_through() -> None:
    target_check("https://93.184.216.34/hook")


def test_registering_a_loopback_url_is_refused(alice: Player, server: Callable[..., Any]) -> None:
    local = server()
    answer = alice.post("/accounts/me/webhooks", {"url": f"{local.url}/hook"})
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    assert "url" in answer.json()["errors"]
    assert not Webhook.objects.exists()


@pytest.fixture
def allow_private(settings: Any) -> None:
    settings.FACEDOWN_WEBHOOK_ALLOW_PRIVATE = True
    settings.FACEDOWN_WEBHOOK_RETRY_BASE_SECONDS = 0.05
    settings.FACEDOWN_WEBHOOK_TIMEOUT_SECONDS = 2


def _register(player: Player, local: LocalServer, **extra: Any) -> dict[str, Any]:
    answer = player.post("/accounts/me/webhooks", {"url": f"{local.url}/hook", **extra})
    assert answer.status_code == 201, answer.content
    return answer.json()


def test_signed_deliveries_reach_the_receiver(
    allow_private: None,
    jobs: Jobs,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],
    django_capture_on_commit_callbacks: Any,
) -> None:
    local = server()
    hook = _register(alice, local, event_types=["your_move", "match_finished"])
    assert len(hook["secret"]) == 64 and hook["event_types"] == ["match_finished", "your_move"]
    listed = alice.get("/accounts/me/webhooks").json()
    assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in listed[0]
    assert bob.get(f"/accounts/me/webhooks/{hook['id']}").status_code == 404

    with django_capture_on_commit_callbacks(execute=True):
        match_id = start_match("gops", [alice, bob], **GOPS3)
    (received,) = local.received
    body = json.loads(received.body)
    assert body["type"] == "your_move" and body["match"] == match_id and body["step"] == 1
    assert received.headers["content-type"] == "application/json"
    assert verify_signature(hook["secret"], received.headers["x-facedown-signature"], received.body)
    assert not verify_signature("0" * 64, received.headers["x-facedown-signature"], received.body)

    log = alice.get(f"/accounts/me/webhooks/{hook['id']}/deliveries").json()
    assert [(d["event_type"], d["status"], d["attempts"], d["response_status"]) for d in log] == [
        ("your_move", "delivered", 1, 200)
    ]
    assert bob.get(f"/accounts/me/webhooks/{hook['id']}/deliveries").status_code == 404
    assert alice.client.delete(f"{API}/accounts/me/webhooks/{hook['id']}").status_code == 204
    assert not Webhook.objects.exists()


def _wait_for(jobs: Jobs) -> None:
    """Sleep until the earliest waiting job is due (a retry's back-off of a fraction of a s)."""
    earliest = min(eta for _, _, eta in jobs)
    time.sleep(max(0.0, (earliest - timezone.now()).total_seconds()) + 0.005)


def test_a_failed_delivery_is_retried_with_back_off(
    allow_private: None,
    jobs: Jobs,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],
    django_capture_on_commit_callbacks: Any,
) -> None:
    local = server([500, 503, 200])
    _register(alice, local, event_types=["your_move"])
    with django_capture_on_commit_callbacks(execute=True):
        start_match("gops", [alice, bob], **GOPS3)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("pending", 1, 500)
    first_wait = delivery.next_attempt_at - delivery.last_attempt_at
    assert [name for name, _, _ in jobs] == ["webhook_deliver"]
    _wait_for(jobs)
    assert jobs.run_due() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("pending", 2, 503)
    assert delivery.next_attempt_at - delivery.last_attempt_at == 2 * first_wait
    _wait_for(jobs)
    assert jobs.run_due() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("delivered", 3)
    assert len(local.received) == 3
    assert len({r.body for r in local.received}) == 1  # the same body each time


def test_a_hook_that_keeps_failing_is_disabled_and_its_owner_told(
    allow_private: None,
    settings: Any,
    jobs: Jobs,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.FACEDOWN_WEBHOOK_ATTEMPTS = 1
    settings.FACEDOWN_WEBHOOK_DISABLE_AFTER = 2
    alice.user.email = "alice@example.com"
    alice.user.save()
    verify(alice.user)
    local = server([500])
    hook = _register(alice, local, event_types=["match_started", "your_move"])
    with django_capture_on_commit_callbacks(execute=True):
        start_match("gops", [alice, bob], **GOPS3)
    seen = alice.get(f"/accounts/me/webhooks/{hook['id']}").json()
    assert seen["active"] is False and seen["disabled_at"] is not None
    assert [
        d["status"] for d in alice.get(f"/accounts/me/webhooks/{hook['id']}/deliveries").json()
    ] == [
        "failed",
        "failed",
    ]
    assert [m.subject for m in mail.outbox if "webhook" in m.subject] == [
        "Facedown: a webhook was disabled"
    ]
    with django_capture_on_commit_callbacks(execute=True):
        start_match("gops", [alice, bob], **GOPS3)
    assert len(local.received) == 2  # nothing more goes to a disabled hook


def test_deliveries_do_not_depend_on_a_sealed_move(
    allow_private: None,
    jobs: Jobs,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],
    django_capture_on_commit_callbacks: Any,
) -> None:
    local = server()
    _register(bob, local)
    match_id = start_match("gops", [alice, bob], **GOPS3, disclose_submitted=False)

    def playing(card: int) -> Callable[[], list[dict[str, Any]]]:
        def play() -> list[dict[str, Any]]:
            local.received.clear()
            with django_capture_on_commit_callbacks(execute=True):
                alice.move(match_id, 1, {"card": card})
                bob.move(match_id, 1, {"card": 2})
            return [{**json.loads(r.body), "at": None} for r in local.received]

        return play

    first, second = alternatives(playing(1), playing(3))
    assert first == second
    assert [d["type"] for d in first] == ["step_resolved", "your_move"]


def test_a_name_resolving_inward_is_refused_before_each_request() -> None:
    # Registration checks the URL; a request resolves the name and checks every address. The
    # machine's own name resolves to loopback or to its private address.
    name = socket.gethostname()
    try:
        socket.getaddrinfo(name, 80)
    except OSError:
        pytest.skip("this machine's name does not resolve")
    target_check(f"http://{name}/hook", resolve=False)
    with pytest.raises(UnsafeTarget, match="private, loopback or link-local"):
        target_check(f"http://{name}/hook")
    with pytest.raises(UnsafeTarget):
        target_check("http://localhost./hook", resolve=False)


def test_closing_an_account_drops_its_hooks_and_export_lists_them(
    allow_private: None, alice: Player, server: Callable[..., LocalServer]
) -> None:
    _register(alice, server())
    exported = alice.get("/accounts/me/export").json()["notifications"]
    assert [h["active"] for h in exported["webhooks"]] == [True]
    assert "secret" not in json.dumps(exported)
    closed = alice.client.delete(
        f"{API}/accounts/me", {"password": "correct-horse-battery"}, format="json"
    )
    assert closed.status_code == 204
    assert not Webhook.objects.exists()
