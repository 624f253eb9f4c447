"""The webhook channel: signed JSON deliveries to the URLs users register.

Each delivery is recorded once per hook and notification (``WebhookDelivery``), then sent by a
job. The body is ``{"id", "type", "match", "at", …}`` (the notification, nothing hidden), signed
``X-Facedown-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>``. A failed attempt
(a network error, or any answer but 2xx) is retried with exponential back-off
(``FACEDOWN_WEBHOOK_RETRY_BASE_SECONDS`` * 2^attempt) up to ``FACEDOWN_WEBHOOK_ATTEMPTS``
attempts; a hook whose deliveries give up ``FACEDOWN_WEBHOOK_DISABLE_AFTER`` times in a row is
disabled and its owner told (by mail, if their address is verified). Every target passes the
SSRF guard (``notify.ssrf``) when registered and again before each attempt; redirects are not
followed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import requests
from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from accounts.models import User
from core.errors import NotFound, ValidationFailed
from core.languages import language_of
from core.text import Text
from games import dispatch
from notify.kinds import KINDS
from notify.models import Webhook, WebhookDelivery
from notify.preferences import mail_allowed, settings_of
from notify.ssrf import UnsafeTarget, target_check

log = logging.getLogger(__name__)

MAX_HOOKS_PER_USER = 10


def signature(secret: str, body: bytes, timestamp: int) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={digest.hexdigest()}"


def webhook_create(*, user: User, url: str, event_types: list[str]) -> Webhook:
    unknown = sorted(set(event_types) - set(KINDS))
    if unknown:
        raise ValidationFailed(
            {
                "event_types": [
                    Text(gettext_noop("Unknown type: %(types)s."), types=", ".join(unknown))
                ]
            }
        )
    try:
        target_check(url, resolve=False)  # its DNS answers are checked before each request
    except UnsafeTarget as exc:
        raise ValidationFailed({"url": [str(exc)]}) from None
    if Webhook.objects.filter(user=user).count() >= MAX_HOOKS_PER_USER:
        raise ValidationFailed(
            {
                "url": [
                    Text(
                        gettext_noop("At most %(high)s webhooks per account."),
                        high=MAX_HOOKS_PER_USER,
                    )
                ]
            }
        )
    return Webhook.objects.create(
        user=user,
        url=url,
        event_types=sorted(set(event_types or KINDS)),
        secret=secrets.token_hex(32),
    )


def webhook_of(*, user: User, webhook_id: int) -> Webhook:
    found = Webhook.objects.filter(user=user, pk=webhook_id).first()
    if found is None:
        raise NotFound(gettext_noop("No such webhook."))
    return found


def webhook_delete(*, user: User, webhook_id: int) -> None:
    webhook_of(user=user, webhook_id=webhook_id).delete()


def webhooks_fan_out(items: Sequence[dict[str, Any]]) -> int:
    """The job behind the channel: a delivery per active hook that wants the type, recorded
    once, each sent by its own job. Returns how many were recorded now."""
    users = {int(item["user"]) for item in items}
    hooks = list(Webhook.objects.filter(user_id__in=users, active=True))
    created: list[int] = []
    for item in items:
        payload = {k: v for k, v in item.items() if k != "user"}
        for hook in hooks:
            if hook.user_id != int(item["user"]) or item["type"] not in hook.event_types:
                continue
            delivery, new = WebhookDelivery.objects.get_or_create(
                webhook=hook,
                notification_id=item["id"],
                defaults={"event_type": item["type"], "payload": payload},
            )
            if new:
                created.append(delivery.pk)
    for delivery_id in created:
        dispatch.enqueue("webhook_deliver", delivery_id)
    return len(created)


def _attempt(hook: Webhook, body: bytes) -> tuple[int | None, str]:
    """One POST; returns (status, error): error is empty on a 2xx answer."""
    try:
        target_check(hook.url)
    except UnsafeTarget as exc:
        return None, str(exc)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Facedown-Webhooks/1",
        "X-Facedown-Signature": signature(hook.secret, body, timestamp),
    }
    try:
        answer = requests.post(
            hook.url,
            data=body,
            headers=headers,
            timeout=settings.FACEDOWN_WEBHOOK_TIMEOUT_SECONDS,
            allow_redirects=False,
        )
    except requests.RequestException as exc:
        return None, type(exc).__name__
    answer.close()
    if 200 <= answer.status_code < 300:
        return answer.status_code, ""
    return answer.status_code, f"HTTP {answer.status_code}"


def webhook_deliver(delivery_id: int) -> str:
    """Attempt one pending delivery; schedule the retry or give up. Returns its status."""
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return delivery.status if delivery else "gone"
    hook = delivery.webhook
    if not hook.active:
        return delivery.status
    now = timezone.now()
    if delivery.next_attempt_at is not None and delivery.next_attempt_at > now:
        return delivery.status  # a duplicate job, ahead of the retry's time
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    status, error = _attempt(hook, body)
    delivery.attempts += 1
    delivery.response_status = status
    delivery.error = error[:200]
    delivery.last_attempt_at = timezone.now()
    retry_at = None
    if not error:
        delivery.status = WebhookDelivery.Status.DELIVERED
        delivery.next_attempt_at = None
    elif delivery.attempts >= settings.FACEDOWN_WEBHOOK_ATTEMPTS:
        delivery.status = WebhookDelivery.Status.FAILED
        delivery.next_attempt_at = None
    else:
        backoff = settings.FACEDOWN_WEBHOOK_RETRY_BASE_SECONDS * 2 ** (delivery.attempts - 1)
        retry_at = delivery.next_attempt_at = delivery.last_attempt_at + timedelta(seconds=backoff)
    with transaction.atomic():
        delivery.save()
        _hook_account(hook.pk, delivery.status)
    if retry_at is not None:
        dispatch.enqueue("webhook_deliver", delivery.pk, eta=retry_at)
    return delivery.status


def _hook_account(hook_id: int, status: str) -> None:
    """Count deliveries that gave up in a row; disable the hook at the limit."""
    hook = Webhook.objects.select_for_update().get(pk=hook_id)
    if status == WebhookDelivery.Status.DELIVERED:
        if hook.failures_in_a_row:
            hook.failures_in_a_row = 0
            hook.save(update_fields=["failures_in_a_row"])
        return
    if status != WebhookDelivery.Status.FAILED:
        return
    hook.failures_in_a_row += 1
    fields = ["failures_in_a_row"]
    if hook.active and hook.failures_in_a_row >= settings.FACEDOWN_WEBHOOK_DISABLE_AFTER:
        hook.active = False
        hook.disabled_at = timezone.now()
        fields += ["active", "disabled_at"]
        transaction.on_commit(lambda: _tell_disabled(hook), robust=True)
    hook.save(update_fields=fields)


def _tell_disabled(hook: Webhook) -> None:
    user = User.objects.get(pk=hook.user_id)
    if not mail_allowed(user, settings_of(user.pk), None):
        return
    with translation.override(language_of(user)):
        subject = gettext("Facedown: a webhook was disabled")
        body = gettext(
            "Deliveries to your webhook %(id)s (%(url)s) failed %(count)s times in a row, so it "
            "is disabled. Its delivery log is at /api/v1/accounts/me/webhooks/%(id)s/deliveries; "
            "register it again once it answers."
        ) % {"id": hook.pk, "url": hook.url, "count": hook.failures_in_a_row}
    EmailMessage(subject, body, to=[user.email]).send()
