"""The moderation log (one row per staff action). Services (``moderation/log.py``) write it;
nothing changes or deletes a row once written."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ModerationLogEntry(models.Model):
    #: Who acted; null for the system (an expired sanction, a rule that fired by itself).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="moderation_actions",
        verbose_name=_("actor"),
    )
    action = models.CharField(_("action"), max_length=60)
    subject_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="moderation_log",
        verbose_name=_("subject user"),
    )
    #: What else the action was about: "match", "tournament", "report", "token", ...
    subject_type = models.CharField(_("subject type"), max_length=40, blank=True, default="")
    subject_id = models.CharField(_("subject id"), max_length=64, blank=True, default="")
    reason = models.TextField(_("reason"), blank=True, default="")
    #: What changed: field names to values (or to [before, after]), JSON-safe.
    changes = models.JSONField(_("changes"), default=dict, blank=True)
    at = models.DateTimeField(_("at"), db_index=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log entries")
        indexes = [
            models.Index(fields=["subject_type", "subject_id"], name="modlog_subject"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action}"
