"""Tournaments in the operator console: read-only pages of the settings, entries, rounds and
the events with their authors.

Nothing here edits a tournament: the organiser's actions go through the API (and their
services), which record them as events. A table shows its players, its match id (the match's
own console page shows what a spectator may see) and its result once recorded; nothing of a
match in progress.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

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


@admin.register(Tournament)
class TournamentAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("name", "game", "format", "status", "current_round", "organiser", "starts_at")
    list_filter = ("status", "format", "game", "featured", "visibility")
    search_fields = ("name", "organiser__username")
    inlines = (EntryInline, RoundInline, EventInline)
    readonly_fields = tuple(
        f.name for f in Tournament._meta.get_fields() if f.concrete and not f.many_to_many
    )


@admin.register(Entry)
class EntryAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("tournament", "user", "status", "rating", "joined_at", "left_at")
    list_filter = ("status",)
    search_fields = ("user__username", "tournament__name")


@admin.register(TournamentMatch)
class TournamentMatchAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("round", "match", "players", "result", "decided_by_stand_in")
    list_filter = ("decided_by_stand_in",)
    fields = ("round", "match", "players", "result", "forfeited", "decided_by_stand_in")
    readonly_fields = fields

    @admin.display(description="result")
    def result(self, table: TournamentMatch) -> Any:
        # Recorded when the match is over; nothing before.
        return table.ranking if table.ranking is not None else "-"


@admin.register(TournamentEvent)
class TournamentEventAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("tournament", "seq", "type", "at", "author")
    list_filter = ("type",)
    search_fields = ("tournament__name", "author__username")
    readonly_fields = ("tournament", "seq", "type", "at", "author", "data")
