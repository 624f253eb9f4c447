"""Users in the console: the stock user admin with bot or person (a column and a filter),
deactivation and token resets, the vacation, and the user page's sections
(console/views/user_page.py).

Deactivating, resetting tokens, unticking "active" or renaming on a user's page all record a
token revocation (``accounts.revocation``): this process forgets its token cache at once, every
other web process refuses the old token within ``FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.authentication import forget_cached_tokens
from accounts.models import AccessToken, User
from accounts.revocation import revocation_record
from console.texts import vacation_text
from console.views import user_page
from core.errors import VacationConflict
from games.services.vacations import vacation_end, vacation_state


class JoinedFilter(admin.SimpleListFilter):
    title = _("joined")
    parameter_name = "joined"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("day", _("In the last day")), ("week", _("In the last week"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        days = {"day": 1, "week": 7}.get(self.value() or "")
        if days is None:
            return queryset
        return queryset.filter(date_joined__gte=timezone.now() - timedelta(days=days))


class KindFilter(admin.SimpleListFilter):
    title = _("bot or person")
    parameter_name = "kind"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("bot", _("Bot")), ("person", _("Person"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        if self.value() in ("bot", "person"):
            return queryset.filter(is_bot=self.value() == "bot")
        return queryset


class FacedownUserAdmin(UserAdmin):
    list_display = ("username", "kind", "email", "is_active", "is_staff", "date_joined")
    list_filter = (KindFilter, JoinedFilter, *UserAdmin.list_filter)
    actions = ("deactivate_users", "reset_tokens", "end_vacations")
    change_form_template = "console/user/change_form.html"
    # Plain multiple selects: the stock two-box widget's search boxes have no accessible
    # label (axe-core: "aria-prohibited-attr", "label").
    filter_horizontal = ()

    @admin.display(description=_("bot or person"), ordering="is_bot")
    def kind(self, user: User) -> str:
        return str(_("Bot")) if user.is_bot else str(_("Person"))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        return (*fieldsets, (_("Vacation"), {"fields": ("vacation",)}))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # The dates are the server's record, never typed in (and Django's split date widget
        # has no label per box).
        return (*super().get_readonly_fields(request, obj), "vacation", "last_login", "date_joined")

    @admin.display(description=_("vacation"))
    def vacation(self, user: User) -> str:
        return vacation_text(vacation_state(user))

    def get_urls(self) -> list[Any]:
        return [
            path(
                "<path:object_id>/revoke-token/<int:token_id>/",
                self.admin_site.admin_view(self.revoke_token_view),
                name="accounts_user_revoke_token",
            ),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        user = self.get_object(request, object_id)
        if user is not None:
            context.update(user_page.page_context(self, request, user))
        return super().change_view(request, object_id, form_url, extra_context=context)

    def revoke_token_view(
        self, request: HttpRequest, object_id: str, token_id: int
    ) -> HttpResponse:
        return user_page.revoke_token(self, request, object_id, token_id)

    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        # A rename is recorded too: the token cache keeps each token's user id and name.
        revokes = change and (not obj.is_active or "username" in form.changed_data)
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            if revokes:
                revocation_record([obj.pk])
        if revokes:
            forget_cached_tokens()

    @admin.action(description=_("Deactivate the selected users"), permissions=["change"])
    def deactivate_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        # An operator cannot lock themselves out by accident.
        me = request.user.pk or 0
        users = list(queryset.exclude(pk=me).filter(is_active=True))
        with transaction.atomic():
            count = User.objects.filter(pk__in=[u.pk for u in users]).update(is_active=False)
            revocation_record(u.pk for u in users)
        forget_cached_tokens()
        for user in users:
            self.log_change(request, user, "Deactivated.")
        if queryset.filter(pk=me).exists():
            self.message_user(request, "You cannot deactivate yourself.", messages.WARNING)
        self.message_user(request, f"{count} user(s) deactivated.", messages.SUCCESS)

    @admin.action(
        description=_("Revoke the API tokens of the selected users"), permissions=["change"]
    )
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

    @admin.action(description=_("End the vacation of the selected users"), permissions=["change"])
    def end_vacations(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        ended = 0
        for user in queryset:
            try:
                vacation_end(user=user)
            except VacationConflict:
                continue  # not on vacation
            ended += 1
            self.log_change(request, user, "Vacation ended.")
        self.message_user(request, f"{ended} vacation(s) ended.", messages.SUCCESS)


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
