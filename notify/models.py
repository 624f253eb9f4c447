"""What notifications remember: preferences, mail and webhook ledgers, push subscriptions."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models


class DeadlineNotice(models.Model):
    """A ``deadline_soon`` reminder sent for one user, match step and window: sent once."""

    class Window(models.TextChoices):
        DAY = "24h"
        HOUR = "1h"
        #: A byo-yomi clock's main time is spent: its periods began.
        BYOYOMI = "byoyomi"

    match_id = models.UUIDField()
    step = models.PositiveIntegerField()
    # A commit-reveal step's reveal phase has a deadline of its own.
    phase = models.CharField(max_length=16)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    window = models.CharField(max_length=8, choices=Window.choices)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match_id", "step", "phase", "user", "window"], name="deadline_notice_once"
            )
        ]

    def __str__(self) -> str:
        return f"deadline_soon {self.window} {self.match_id}#{self.step} for {self.user_id}"


def new_calendar_key() -> str:
    return secrets.token_urlsafe(24)


class NotificationSettings(models.Model):
    """A user's notification preferences, verified address and private calendar key."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings"
    )
    email_your_move = models.BooleanField(default=True)
    email_deadline_soon = models.BooleanField(default=True)
    email_match_finished = models.BooleanField(default=True)
    email_invited = models.BooleanField(default=True)
    push_your_move = models.BooleanField(default=True)
    push_deadline_soon = models.BooleanField(default=True)
    #: A proposed pause or abort, and the answer to one's own (games/services/proposals.py).
    #: db_default: a process of the previous release creating settings during a rolling
    #: upgrade does not know the columns.
    email_proposals = models.BooleanField(default=True, db_default=True)
    push_proposals = models.BooleanField(default=True, db_default=True)
    #: A tournament's registration, rounds, stand-in decisions and end (tournaments/).
    email_tournaments = models.BooleanField(default=True, db_default=True)
    push_tournaments = models.BooleanField(default=True, db_default=True)
    # The address the user proved to own; mail goes out only while it equals ``user.email``.
    verified_email = models.CharField(max_length=254, blank=True, default="")
    # When the last "your move" digest went out (at most one per interval).
    your_move_mailed_at = models.DateTimeField(null=True, blank=True)
    calendar_key = models.CharField(max_length=64, unique=True, default=new_calendar_key)

    def __str__(self) -> str:
        return f"notification settings of {self.user_id}"


class MailItem(models.Model):
    """One notification to be mailed: the ledger that makes mailing idempotent per
    notification and lets "your move" wait for the next digest."""

    notification_id = models.CharField(max_length=200, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=40)
    #: Null for a notification about a whole tournament (its registration, its end).
    match_id = models.UUIDField(null=True, blank=True)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "kind", "sent_at"], name="mail_item_pending")]

    def __str__(self) -> str:
        return f"mail {self.notification_id}"


class Webhook(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.URLField(max_length=2000)
    event_types = models.JSONField(default=list)
    # Shared with the receiver, who checks each delivery's HMAC with it; shown once.
    secret = models.CharField(max_length=64)
    active = models.BooleanField(default=True)
    # Deliveries that gave up in a row; at FACEDOWN_WEBHOOK_DISABLE_AFTER the hook is disabled.
    failures_in_a_row = models.PositiveIntegerField(default=0)
    disabled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.user_id}"


class WebhookDelivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    notification_id = models.CharField(max_length=200)
    event_type = models.CharField(max_length=20)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["webhook", "notification_id"], name="webhook_delivery_once"
            )
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} of webhook {self.webhook_id}"


class PushSubscription(models.Model):
    """A browser's Web Push subscription (its endpoint and encryption keys)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=2000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"push subscription {self.pk} of {self.user_id}"
