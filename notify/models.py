"""What notifications remember: which deadline reminders went out."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class DeadlineNotice(models.Model):
    """A ``deadline_soon`` reminder sent for one user, match step and window: sent once."""

    class Window(models.TextChoices):
        DAY = "24h"
        HOUR = "1h"

    match_id = models.UUIDField()
    step = models.PositiveIntegerField()
    # A commit-reveal step's reveal phase has a deadline of its own.
    phase = models.CharField(max_length=16)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    window = models.CharField(max_length=4, choices=Window.choices)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match_id", "step", "phase", "user", "window"], name="deadline_notice_once"
            )
        ]

    def __str__(self) -> str:
        return f"deadline_soon {self.window} {self.match_id}#{self.step} for {self.user_id}"
