"""Matches in the console: the list, the match page for people, and the operator's actions.

Nothing here edits a match directly: every change goes through ``games.services.operators``
(or ``substitutes``), which records the operator and a reason in the match's events, and the
console records it in the moderation log too. What a page shows of a match is what a spectator
may read (console/views/match_sections.py)."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import admin
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.utils.translation import gettext_lazy as _

from console.admins.match_filters import (
    HasBotsFilter,
    OverdueFilter,
    PausedFilter,
    SinceFilter,
    StalledFilter,
)
from console.operations import OPERATIONS
from console.texts import time_control_text
from console.views import match_page
from console.views.match_sections import deadline
from games.events import timestamp
from games.models import Match, Seat


class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "step", "players", "public_deadline", "created_at")
    list_filter = (
        "game",
        "status",
        OverdueFilter,
        PausedFilter,
        HasBotsFilter,
        StalledFilter,
        SinceFilter,
    )
    search_fields = ("seats__user__username",)
    #: The only field lookups a changelist URL may use. Django allows filtering on any of the
    #: model's own fields by default, and the answer (1 match or 0) would reveal the secret
    #: seed or the hidden state one yes/no question at a time.
    allowed_lookups = frozenset(
        {
            "game",
            "game__exact",
            "status",
            "status__exact",
            "overdue",
            "paused",
            "has_bots",
            "stalled",
            "since",
        }
    )
    search_help_text = _("A player's username, or a match id.")
    list_per_page = 50
    actions = ("abort_selected", "extend_selected", "force_timeout_selected")
    change_form_template = "console/match/change_form.html"
    fields = ("game",)
    readonly_fields = ("game",)

    # Read-only: no raw add, edit or delete. Operators change matches through the actions.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_operate_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and user.has_perm("games.change_match"))

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        return lookup in self.allowed_lookups

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return (
            super()
            .get_queryset(request)
            .defer("state", "seed")
            .select_related("created_by")
            .prefetch_related(
                Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
            )
        )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Match], search_term: str
    ) -> tuple[QuerySet[Match], bool]:
        try:
            match_id = uuid.UUID(search_term.strip())
        except ValueError:
            return super().get_search_results(request, queryset, search_term)
        return queryset.filter(pk=match_id), False

    @admin.display(description=_("players"))
    def players(self, match: Match) -> str:
        names = []
        for seat in match.seats.all():
            name = seat.user.username if seat.user is not None else ("" if seat.bot else "open")
            if seat.controlled_by == Seat.Controller.BOT:
                name = f"{name} [bot {seat.bot}]" if name else f"[bot {seat.bot}]"
            if seat.forfeited:
                name += " (forfeited)"
            names.append(name)
        return ", ".join(names)

    @admin.display(description=_("deadline"))
    def public_deadline(self, match: Match) -> str:
        return timestamp(deadline(match)) or "—"

    @admin.display(description=_("time control"))
    def time_control_words(self, match: Match) -> str:
        return time_control_text(match.time_control)

    # --- the match page and its actions (console/views/match_page.py) ---

    def get_urls(self) -> list[Any]:
        info = self.opts.app_label, self.opts.model_name
        wrap = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/operate/<slug:operation>/",
                wrap(self.operate_view),
                name="{}_{}_operate".format(*info),
            ),
            path(
                "<path:object_id>/transcript/",
                wrap(self.transcript_view),
                name="{}_{}_transcript".format(*info),
            ),
            path(
                "<path:object_id>/verify/",
                wrap(self.verify_view),
                name="{}_{}_verify".format(*info),
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
        match = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if match is not None:
            context.update(match_page.page_context(self, request, match))
        return super().change_view(request, object_id, form_url, extra_context=context)

    def operate_view(self, request: HttpRequest, object_id: str, operation: str) -> HttpResponse:
        return match_page.operate(self, request, object_id, operation)

    def transcript_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return match_page.transcript(self, request, object_id)

    def verify_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return match_page.verify(self, request, object_id)

    # --- list actions: an intermediate page asks for the reason ---

    @admin.action(description=_("Abort the selected matches"), permissions=["operate"])
    def abort_selected(self, request: HttpRequest, queryset: QuerySet[Match]) -> Any:
        return match_page.bulk(self, request, queryset, "abort_selected", OPERATIONS["abort"])

    @admin.action(description=_("Extend the current deadline"), permissions=["operate"])
    def extend_selected(self, request: HttpRequest, queryset: QuerySet[Match]) -> Any:
        return match_page.bulk(self, request, queryset, "extend_selected", OPERATIONS["extend"])

    @admin.action(
        description=_("Force the timeout of the current step now"), permissions=["operate"]
    )
    def force_timeout_selected(self, request: HttpRequest, queryset: QuerySet[Match]) -> Any:
        return match_page.bulk(
            self, request, queryset, "force_timeout_selected", OPERATIONS["force-timeout"]
        )
