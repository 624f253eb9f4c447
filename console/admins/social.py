"""Chat and seeks in the console: operators read match chat and hide a message with a reason
(kept on the message, and in the moderation log)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest

from accounts.models import User
from console.records import staff_record
from social.chat import message_hide
from social.models import ChatMessage


class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("match", "seq", "author", "at", "text", "hidden", "hidden_reason")
    list_filter = ("hidden",)
    search_fields = ("author__username", "text", "match__id")
    fields = ("match", "seq", "author", "seat", "at", "text", "hidden", "hidden_reason")
    readonly_fields = ("match", "seq", "author", "seat", "at", "text", "hidden")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ChatMessage, form: Any, change: bool) -> None:
        """Writing a reason hides the message (through the service, with the operator)."""
        reason = obj.hidden_reason.strip()
        if not reason:
            messages.error(request, "Write a reason to hide this message.")
            return
        assert isinstance(request.user, User)
        message_hide(obj, operator=request.user, reason=reason)
        staff_record(
            actor=request.user,
            action="chat_hide",
            reason=reason,
            subject_user=obj.author,
            subject_type="chat_message",
            subject_id=str(obj.pk),
        )


class SeekAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "game", "players", "status", "match", "created_at", "expires_at")
    list_filter = ("status", "game")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
