"""How notifications take part in an account's life (``accounts.hooks``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from accounts.models import User
from games import dispatch
from notify.models import PushSubscription, Webhook
from notify.preferences import CHANGEABLE, email_verified, settings_of


def notify_email_changed(user: User) -> None:
    """A new address is unverified until its owner opens the mailed link."""
    if user.email:  # on commit: at once, unless a caller still holds a transaction open
        transaction.on_commit(partial(dispatch.enqueue, "email_verify_send", user.pk), robust=True)


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
