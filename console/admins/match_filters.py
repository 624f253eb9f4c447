"""The match list's filters."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import admin
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from console.views.match_sections import deadline
from games.models import Match, Seat


class OverdueFilter(admin.SimpleListFilter):
    """Active matches whose public deadline has passed. Not the row's ``deadline`` (the sweep's):
    under ``disclose_submitted: false`` a seat's move can move it, so filtering on it would
    answer, one yes/no at a time, whether a seat has moved. The public one is worked out per
    match (``deadline_shown``), so this reads every active match of the list: fine for an
    operator's page; the sweep itself (games/locks.py) keeps to the row's own."""

    title = _("overdue")
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("Overdue")), ("no", _("Not overdue"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        if self.value() not in ("yes", "no"):
            return queryset
        now = timezone.now()
        overdue = [
            match.pk
            for match in queryset.filter(status=Match.Status.ACTIVE)
            if (shown := deadline(match)) is not None and shown < now
        ]
        if self.value() == "yes":
            return queryset.filter(pk__in=overdue)
        return queryset.exclude(pk__in=overdue)


class PausedFilter(admin.SimpleListFilter):
    """Active matches in a pause their players agreed to (games/services/proposals.py)."""

    title = _("paused")
    parameter_name = "paused"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("Paused now")), ("no", _("Not paused"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        paused = {"status": Match.Status.ACTIVE, "paused_until__gt": timezone.now()}
        if self.value() == "yes":
            return queryset.filter(**paused)
        if self.value() == "no":
            return queryset.exclude(**paused)
        return queryset


class HasBotsFilter(admin.SimpleListFilter):
    title = _("bots")
    parameter_name = "has_bots"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("A bot plays a seat")), ("no", _("No bot"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        bots = Exists(Seat.objects.filter(match=OuterRef("pk"), controlled_by=Seat.Controller.BOT))
        if self.value() == "yes":
            return queryset.filter(bots)
        if self.value() == "no":
            return queryset.exclude(bots)
        return queryset


class SinceFilter(admin.SimpleListFilter):
    """Matches created in the last day (the home page's figure links here)."""

    title = _("created")
    parameter_name = "since"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("day", _("In the last day"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        if self.value() == "day":
            return queryset.filter(created_at__gte=timezone.now() - timedelta(days=1))
        return queryset


class StalledFilter(admin.SimpleListFilter):
    """Active matches whose bot or conditional-move job is late (console/figures.py)."""

    title = _("stalled jobs")
    parameter_name = "stalled"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("bots", _("A bot's move is late")), ("conditional", _("Conditional moves late"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        from console.figures import stalled_bot_matches, stalled_conditional_matches

        now = timezone.now()
        if self.value() == "bots":
            return queryset.filter(pk__in=stalled_bot_matches(now).values("pk"))
        if self.value() == "conditional":
            return queryset.filter(pk__in=stalled_conditional_matches(now))
        return queryset
