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
from rest_framework.authtoken.models import Token

from accounts.authentication import forget_cached_tokens
from accounts.models import User
from accounts.revocation import revocation_record


@admin.register(User)
class FacedownUserAdmin(UserAdmin):
    actions = ("deactivate_users", "reset_tokens")

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

    @admin.action(description="Reset the API tokens of the selected users", permissions=["change"])
    def reset_tokens(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        users = list(queryset)
        with transaction.atomic():
            Token.objects.filter(user__in=users).delete()
            Token.objects.bulk_create(
                [Token(user=user, key=Token.generate_key()) for user in users]
            )
            revocation_record(user.pk for user in users)
        forget_cached_tokens()
        for user in users:
            self.log_change(request, user, "API token reset.")
        self.message_user(
            request,
            f"{len(users)} token(s) reset; the old ones no longer work. "
            "Players get the new one by logging in (POST /api/v1/accounts/token).",
            messages.SUCCESS,
        )
