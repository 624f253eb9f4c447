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


class Report(models.Model):
    """What players reported about one object (a chat message, a player, a match, or an
    appeal of a sanction): every report about the same object while it is open merges here,
    one ``ReportFiling`` per reporter. The evidence is a snapshot taken at the first filing,
    so archiving or a closed account does not erase it; it holds only what a spectator may
    read (never a hidden card or a sealed move)."""

    class Kind(models.TextChoices):
        CHAT_MESSAGE = "chat_message", _("chat message")
        PLAYER = "player", _("player")
        MATCH = "match", _("match")
        APPEAL = "appeal", _("appeal of a sanction")

    class State(models.TextChoices):
        OPEN = "open", _("open")
        IN_PROGRESS = "in_progress", _("in progress")
        HANDLED = "handled", _("handled")
        DISMISSED = "dismissed", _("dismissed")

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    #: The reported object, e.g. ``chat:<match>:<seq>``, ``player:<user id>``,
    #: ``match:<id>``, ``sanction:<id>``: reports with the same key merge while open.
    subject_key = models.CharField(_("reported object"), max_length=120)
    reported_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports_about",
        verbose_name=_("reported player"),
    )
    match_id = models.UUIDField(_("match"), null=True, blank=True)
    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.OPEN)
    evidence = models.JSONField(_("evidence"), default=dict, blank=True)
    created_at = models.DateTimeField(_("reported at"), db_index=True)
    updated_at = models.DateTimeField(_("last filed at"))
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports_taken",
        verbose_name=_("taken by"),
    )
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    resolution = models.TextField(_("resolution"), blank=True, default="")

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        constraints = [
            models.UniqueConstraint(
                fields=["subject_key"],
                name="report_one_open_per_object",
                condition=models.Q(state__in=["open", "in_progress"]),
            ),
        ]
        indexes = [models.Index(fields=["state", "created_at"], name="report_queue")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.subject_key} ({self.get_state_display()})"


class ReportFiling(models.Model):
    """One player's report, merged into its ``Report``. Only staff ever read who filed it."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", _("abuse or insults")
        ABANDONMENT = "abandonment", _("abandons matches")
        OUTSIDE_HELP = "outside_help", _("suspected outside help")
        SPAM = "spam", _("spam")
        OTHER = "other", _("something else")
        APPEAL = "appeal", _("appeal")

    report = models.ForeignKey(
        Report, on_delete=models.CASCADE, related_name="filings", verbose_name=_("report")
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_filed",
        verbose_name=_("reporter"),
    )
    reason = models.CharField(_("reason"), max_length=20, choices=Reason.choices)
    comment = models.TextField(_("comment"), blank=True, default="")
    at = models.DateTimeField(_("at"))

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("filing")
        verbose_name_plural = _("filings")
        constraints = [
            models.UniqueConstraint(fields=["report", "reporter"], name="filing_once_per_report"),
        ]

    def __str__(self) -> str:
        return f"{self.reason} at {self.at:%Y-%m-%d %H:%M}"


class Sanction(models.Model):
    """A moderator's sanction of an account, with its reason and optional end. The account's
    row carries the ends in force (``User.play_suspended_until``, ``chat_muted_until``), kept
    by moderation/sanctions.py from the sanctions not lifted."""

    class Kind(models.TextChoices):
        WARN = "warn", _("warning")
        CHAT_MUTE = "chat_mute", _("muted in chat by a moderator")
        SUSPEND = "suspend", _("suspended from play")
        CLOSE = "close", _("account closed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="sanctions",
        verbose_name=_("player"),
    )
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    reason = models.TextField(_("reason"))
    starts_at = models.DateTimeField(_("from"))
    #: None: no end (until lifted).
    ends_at = models.DateTimeField(_("until"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="sanctions_given",
        verbose_name=_("by"),
    )
    report = models.ForeignKey(
        Report,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sanctions",
        verbose_name=_("report"),
    )
    lifted_at = models.DateTimeField(_("lifted at"), null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sanctions_lifted",
        verbose_name=_("lifted by"),
    )
    appealed_at = models.DateTimeField(_("appealed at"), null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        verbose_name = _("sanction")
        verbose_name_plural = _("sanctions")
        permissions = [("close_account", _("Can close an account as a sanction"))]
        indexes = [models.Index(fields=["user", "kind"], name="sanction_user_kind")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.starts_at:%Y-%m-%d})"


class StaffNote(models.Model):
    """A note staff keep about an account; only staff read it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="staff_notes",
        verbose_name=_("player"),
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="staff_notes_written",
        verbose_name=_("author"),
    )
    text = models.TextField(_("note"))
    at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("staff note")
        verbose_name_plural = _("staff notes")

    def __str__(self) -> str:
        return f"note of {self.at:%Y-%m-%d}"
