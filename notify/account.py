"""How notifications take part in an account's life (``accounts.hooks``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from accounts.models import User
from accounts.services import password_reset_mail
from games import dispatch
from notify.models import NotificationSettings, PushSubscription, Webhook
from notify.preferences import CHANGEABLE, email_verified, settings_of


def notify_email_changed(user: User) -> None:
    """A new address is unverified until its owner opens the mailed link."""
    if user.email:  # on commit: at once, unless a caller still holds a transaction open
        transaction.on_commit(partial(dispatch.enqueue, "email_verify_send", user.pk), robust=True)


def notify_password_reset_requested(email: str) -> None:
    """The request only enqueues (the same work for any address); the job mails."""
    transaction.on_commit(partial(dispatch.enqueue, "password_reset_send", email), robust=True)


def password_reset_send(email: str) -> int:
    """The reset job: a link to each active account whose verified address ``email`` is (an
    unverified address may be anyone's: it never receives a reset). Returns how many went."""
    sent = 0
    for user in User.objects.filter(email__iexact=email, is_active=True).order_by("pk"):
        prefs = NotificationSettings.objects.filter(user_id=user.pk).first()
        if prefs is not None and email_verified(user, prefs):
            password_reset_mail(user)
            sent += 1
    return sent


def notify_account_close(user: User) -> None:
    """A closed account receives nothing: its hooks and subscriptions go."""
    Webhook.objects.filter(user=user).delete()
    PushSubscription.objects.filter(user=user).delete()


def notify_export(user: User) -> dict[str, Any]:
    prefs = settings_of(user.pk)
    return {
        "notifications": {
            **{name: getattr(prefs, name) for name in sorted(CHANGEABLE)},
            "email_verified": email_verified(user, prefs),
            "webhooks": [
                {"url": hook.url, "event_types": hook.event_types, "active": hook.active}
                for hook in Webhook.objects.filter(user=user)
            ],
            "push_subscriptions": PushSubscription.objects.filter(user=user).count(),
        }
    }
