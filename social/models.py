"""Seeks (a player waiting for opponents) and match chat.

Neither is part of a match's record: no row here is a match event, and nothing here changes a
match's ``version``, ``last_seq`` or ETag. Services (``social/seeks.py``, ``social/chat.py``)
make every change.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import DeclineReason, Match


class Seek(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        MATCHED = "matched"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    game = models.CharField(max_length=40)
    players = models.PositiveSmallIntegerField()
    # The engine's filled options and the validated time control: equal seeks pair.
    options = models.JSONField(default=dict)
    time_control = models.JSONField(null=True, blank=True)
    # A digest of (game, players, options, time control): seeks pair only within one pool.
    pool = models.CharField(max_length=64)
    rating_range = models.JSONField(null=True, blank=True)
    client_seed = models.CharField(max_length=64, blank=True, default="")
    #: Whether bot accounts may pair with this seek (a bot's own seek pairs with bots anyway).
    allow_bots = models.BooleanField(default=False, db_default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["pool", "status", "created_at"], name="seek_pool_open")]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "pool"], name="seek_one_open_per_pool", condition=Q(status="open")
            ),
        ]

    def __str__(self) -> str:
        return f"seek {self.id} {self.game} x{self.players} ({self.status})"


class Challenge(models.Model):
    """One player's offer of a match to another (or to anyone, or to a house bot), answered by
    accepting or declining with a reason (docs/programs.md)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        CANCELED = "canceled"
        EXPIRED = "expired"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    #: The challenged user; null for an open challenge or one to a house bot.
    to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="challenges_received",
    )
    house_bot = models.CharField(max_length=40, blank=True, default="")
    game = models.CharField(max_length=40)
    seats = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict)
    time_control = models.JSONField(null=True, blank=True)
    rated = models.BooleanField(default=True)
    protocol = models.CharField(max_length=20)
    #: An open challenge: whether bot accounts may accept it (a bot's own one: always).
    allow_bots = models.BooleanField(default=False, db_default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decline_reason = models.CharField(max_length=20, choices=DeclineReason.choices, blank=True)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["to", "status"], name="challenge_to_status"),
            models.Index(fields=["challenger", "status"], name="challenge_from_status"),
        ]

    def __str__(self) -> str:
        return f"challenge {self.id} {self.game} ({self.status})"


class ChatRoom(models.Model):
    """One per match with chat, created with its first message: the numbering's counter, and
    the row a new message locks (never the match row, so chat never waits for a move)."""

    match = models.OneToOneField(
        Match, primary_key=True, on_delete=models.CASCADE, related_name="chat_room"
    )
    last_seq = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"chat of {self.match_id}"


class ChatMessage(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    # Numbered densely per match, from 1: the chat's own numbering, not the events' seq.
    seq = models.PositiveIntegerField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    seat = models.PositiveSmallIntegerField()
    text = models.TextField()
    at = models.DateTimeField()
    hidden = models.BooleanField(default=False)
    hidden_reason = models.CharField(max_length=200, blank=True, default="")
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    hidden_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="chat_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"chat {self.match_id}#{self.seq}"


class ChatMute(models.Model):
    """``user`` no longer reads ``muted``'s messages, in any match."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="chat_mute_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"
