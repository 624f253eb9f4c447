"""``User.offsite_channels``: whether a user has anywhere notifications go outside the site.

The outbound job (e-mail, webhooks, Web Push) is enqueued only for notifications of users with
the flag set (``notify.outbound``), and the flag is read with the seats a match change already
locks, so a move between players without such destinations costs no job, no broker message
and no query of the worker.

The flag must never be false while a destination exists (it may be true without one: the job
then finds nothing). Hence, on every change to a verified address, a webhook or a push
subscription:

- a change that adds a destination sets the flag inside its own transaction;
- after any change commits, the flag is computed again from the rows, under the user's row
  lock, in a statement that starts after the lock is held: of two concurrent refreshes, the
  later one sees what both changes committed.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.db.models.signals import post_delete, post_save

from accounts.models import User
from notify.models import NotificationSettings, PushSubscription, Webhook


def offsite_users() -> Q:
    """The users with at least one destination outside the site."""
    return (
        Q(pk__in=NotificationSettings.objects.exclude(verified_email="").values("user_id"))
        | Q(pk__in=Webhook.objects.filter(active=True).values("user_id"))
        | Q(pk__in=PushSubscription.objects.values("user_id"))
    )


def offsite_refresh(user_id: int) -> None:
    """Compute the flag of ``user_id`` from its rows (module docstring)."""
    with transaction.atomic():
        if not list(User.objects.select_for_update().filter(pk=user_id).values_list("pk")):
            return  # the account was closed
        has = User.objects.filter(offsite_users(), pk=user_id).exists()
        User.objects.filter(pk=user_id).update(offsite_channels=has)


def _adds(instance: Any) -> bool:
    if isinstance(instance, NotificationSettings):
        return bool(instance.verified_email)
    if isinstance(instance, Webhook):
        return bool(instance.active)
    return True  # a push subscription


def _saved(sender: Any, instance: Any, **_: Any) -> None:
    if _adds(instance):
        User.objects.filter(pk=instance.user_id, offsite_channels=False).update(
            offsite_channels=True
        )
    _refresh_on_commit(instance.user_id)


def _deleted(sender: Any, instance: Any, **_: Any) -> None:
    _refresh_on_commit(instance.user_id)


def _refresh_on_commit(user_id: int) -> None:
    def offsite_refresh_after_commit() -> None:  # a named function: Django logs its name
        offsite_refresh(user_id)

    transaction.on_commit(offsite_refresh_after_commit, robust=True)


def offsite_signals_connect() -> None:
    for model in (NotificationSettings, Webhook, PushSubscription):
        post_save.connect(_saved, sender=model, dispatch_uid=f"offsite-saved-{model.__name__}")
        post_delete.connect(
            _deleted, sender=model, dispatch_uid=f"offsite-deleted-{model.__name__}"
        )
