"""Moderation in the operator console: the moderation log (read-only, searchable, staff only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from moderation.models import ModerationLogEntry


@admin.register(ModerationLogEntry)
class ModerationLogEntryAdmin(admin.ModelAdmin):
    list_display = ("at", "actor", "action", "subject_user", "subject_type", "subject_id", "reason")
    list_filter = ("action", "subject_type")
    search_fields = (
        "action",
        "reason",
        "actor__username",
        "subject_user__username",
        "subject_type",
        "subject_id",
    )
    date_hierarchy = "at"
    readonly_fields = (*list_display, "changes")
    fields = readonly_fields
    list_select_related = ("actor", "subject_user")

    # The log is written only by the services (moderation/log.py): nobody edits or deletes it.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
