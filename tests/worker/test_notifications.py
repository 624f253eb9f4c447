"""Notifications through a real Celery worker: a webhook delivery retried with back-off by
Celery (ETA tasks on the Redis broker), and a "your move" mail sent by a task."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail

from notify.models import WebhookDelivery
from tests.notify.conftest import LocalServer, server, verify  # noqa: F401 - the fixture
from tests.players import Player, start_match

pytestmark = pytest.mark.django_db(transaction=True)


def _until(check: Callable[[], bool], seconds: float = 15.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_a_delivery_is_retried_by_celery_and_mail_sent_by_a_task(
    settings: Any,
    celery_worker: object,
    alice: Player,
    bob: Player,
    server: Callable[..., LocalServer],  # noqa: F811
) -> None:
    settings.FACEDOWN_WEBHOOK_ALLOW_PRIVATE = True
    settings.FACEDOWN_WEBHOOK_RETRY_BASE_SECONDS = 0.3
    alice.user.email = "alice@example.com"
    alice.user.save()
    verify(alice.user)
    local = server([500, 200])
    hook = alice.post(
        "/accounts/me/webhooks", {"url": f"{local.url}/h", "event_types": ["your_move"]}
    )
    assert hook.status_code == 201

    start_match("gops", [alice, bob], options={"num_cards": 3})

    assert _until(lambda: WebhookDelivery.objects.filter(status="delivered").exists())
    delivery = WebhookDelivery.objects.get()
    assert delivery.attempts == 2 and len(local.received) == 2
    assert _until(lambda: any(m.to == ["alice@example.com"] for m in mail.outbox))
    assert [m.subject for m in mail.outbox] == ["Facedown: your move in 1 match"]
