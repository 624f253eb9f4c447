"""Users in the operator console: the stock user admin plus deactivation and token resets.

Both actions, and unticking "active" or renaming on a user's page, record a token revocation
(``accounts.revocation``): this process forgets its token cache at once, every other web process
refuses the old token within ``FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.authentication import forget_cached_tokens
from accounts.models import AccessToken, User
from accounts.revocation import revocation_record


@admin.register(User)
class FacedownUserAdmin(UserAdmin):
    actions: tuple[str, ...] = ("deactivate_users", "reset_tokens")

    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        # A rename is recorded too: the token cache keeps each token's user id and name.
        revokes = change and (not obj.is_active or "username" in form.changed_data)
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            if revokes:
                revocation_record([obj.pk])
        if revokes:
            forget_cached_tokens()

    @admin.action(description="Deactivate the selected users", permissions=["change"])
    def deactivate_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        # An operator cannot lock themselves out by accident.
        me = request.user.pk or 0
        others = queryset.exclude(pk=me).filter(is_active=True)
        users = list(others)
        with transaction.atomic():
            count = User.objects.filter(pk__in=[u.pk for u in users]).update(is_active=False)
            revocation_record(u.pk for u in users)
        forget_cached_tokens()
        for user in users:
            self.log_change(request, user, "Deactivated.")
        if queryset.filter(pk=me).exists():
            self.message_user(request, "You cannot deactivate yourself.", messages.WARNING)
        self.message_user(request, f"{count} user(s) deactivated.", messages.SUCCESS)

    @admin.action(description="Revoke the API tokens of the selected users", permissions=["change"])
    def reset_tokens(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        users = list(queryset)
        with transaction.atomic():
            AccessToken.objects.filter(user__in=users).delete()
            revocation_record(user.pk for user in users)
        forget_cached_tokens()
        for user in users:
            self.log_change(request, user, "API token reset.")
        self.message_user(
            request,
            f"The tokens of {len(users)} user(s) were revoked; they no longer work. "
            "Players get a new one by logging in (POST /api/v1/accounts/token).",
            messages.SUCCESS,
        )


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    """Names, scopes and dates only: the digest (the lookup key of a secret) is never shown,
    and a token is made only by its owner. Deleting one here revokes it."""

    list_display = ("name", "user", "scopes", "created_at", "expires_at", "last_used_at")
    search_fields = ("user__username", "name")
    fields = ("user", "name", "scopes", "created_at", "expires_at", "last_used_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def delete_model(self, request: HttpRequest, obj: AccessToken) -> None:
        with transaction.atomic():
            super().delete_model(request, obj)
            revocation_record([obj.user_id])
        forget_cached_tokens()

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[AccessToken]) -> None:
        users = set(queryset.values_list("user_id", flat=True))
        with transaction.atomic():
            super().delete_queryset(request, queryset)
            revocation_record(users)
        forget_cached_tokens()
