"""The ladder in the console: its entries (status, pause reason, ladder rating) and its
matches with the verifier's verdict, read only (every change is the entrant's own act or the
server's, through ``ladder.services``)."""

from __future__ import annotations

from django.contrib import admin

from console.admins.tournaments import ReadOnly


class LadderEntryAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("user", "game", "status", "paused_reason", "played", "won", "mu", "sigma")
    list_filter = ("game", "status", "paused_reason")
    search_fields = ("user__username",)


class LadderMatchAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("match", "game", "started_at", "finished_at", "verified")
    list_filter = ("game", "verified")
    readonly_fields = ("match", "game", "entries", "started_at", "finished_at", "ranking")
    fields = (*readonly_fields, "verified", "verify_problems")
