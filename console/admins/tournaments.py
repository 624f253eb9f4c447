"""Tournaments in the console: their pages (settings in words, entries, rounds, events with
their authors) and the organiser's controls for staff — start, pause, resume, disqualify,
end — each with a reason, through the tournaments' own services (which record the event and
its author) and the moderation log (console/views/tournament_page.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.utils.translation import gettext_lazy as _

from console.texts import duration_words, time_control_text
from console.views import tournament_page
from tournaments.models import Entry, Tournament, TournamentEvent, TournamentMatch, TournamentRound


class ReadOnly:
    """Operators read; every change is a service's (with an event and its author)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class EntryInline(ReadOnly, admin.TabularInline):
    model = Entry
    fields = ("user", "status", "rating", "joined", "invited", "joined_at", "left_at")
    readonly_fields = fields
    extra = 0


class RoundInline(ReadOnly, admin.TabularInline):
    model = TournamentRound
    fields = ("number", "started_at", "limit_at", "finished_at")
    readonly_fields = fields
    extra = 0


class EventInline(ReadOnly, admin.TabularInline):
    model = TournamentEvent
    fields = ("seq", "type", "at", "author", "data")
    readonly_fields = fields
    extra = 0


_WORDED = {"round_limit_seconds": "round_limit", "time_control": "time_control_words"}


class TournamentAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("name", "game", "format", "status", "current_round", "round_limit", "organiser")
    list_filter = ("status", "format", "game", "featured", "visibility")
    search_fields = ("name", "organiser__username")
    inlines = (EntryInline, RoundInline, EventInline)
    readonly_fields = tuple(
        _WORDED.get(f.name, f.name)
        for f in Tournament._meta.get_fields()
        if f.concrete and not f.many_to_many
    )
    # In words instead (round_limit, time_control_words).
    exclude = tuple(_WORDED)
    change_form_template = "console/tournament/change_form.html"

    @admin.display(description=_("round limit"))
    def round_limit(self, tournament: Tournament) -> str:
        return duration_words(tournament.round_limit_seconds)

    @admin.display(description=_("time control"))
    def time_control_words(self, tournament: Tournament) -> str:
        return time_control_text(tournament.time_control)

    def has_control_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(
            user.is_active and user.is_staff and user.has_perm("tournaments.change_tournament")
        )

    def get_urls(self) -> list[Any]:
        return [
            path(
                "<path:object_id>/control/<slug:control>/",
                self.admin_site.admin_view(self.control_view),
                name="tournaments_tournament_control",
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
        tournament = self.get_object(request, object_id)
        if tournament is not None and self.has_control_permission(request):
            context["controls"] = tournament_page.controls_allowed(tournament)
        return super().change_view(request, object_id, form_url, extra_context=context)

    def control_view(self, request: HttpRequest, object_id: str, control: str) -> HttpResponse:
        return tournament_page.control(self, request, object_id, control)


class EntryAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("tournament", "user", "status", "rating", "joined_at", "left_at")
    list_filter = ("status",)
    search_fields = ("user__username", "tournament__name")


class TournamentMatchAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("round", "match", "players", "result", "decided_by_stand_in")
    list_filter = ("decided_by_stand_in",)
    fields = ("round", "match", "players", "result", "forfeited", "decided_by_stand_in")
    readonly_fields = fields

    @admin.display(description=_("result"))
    def result(self, table: TournamentMatch) -> Any:
        # Recorded when the match is over; nothing before.
        return table.ranking if table.ranking is not None else "-"


class TournamentEventAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("tournament", "seq", "type", "at", "author")
    list_filter = ("type",)
    search_fields = ("tournament__name", "author__username")
    readonly_fields = ("tournament", "seq", "type", "at", "author", "data")
