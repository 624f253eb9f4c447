"""Moderation in the operator console: the report queue, sanctions, staff notes and the
moderation log. Every change goes through a service (moderation/reports.py, sanctions.py),
which checks the permission again and writes the log; pages here only read and ask."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from moderation.console import OperateViews
from moderation.evidence import evidence_html
from moderation.models import ModerationLogEntry, Report, ReportFiling, Sanction, StaffNote
from moderation.notes import staff_note_add
from moderation.reports import report_take


class NoEditing:
    """Rows change only through the services: no add, edit or delete form."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class AgeFilter(admin.SimpleListFilter):
    title = _("age")
    parameter_name = "age"
    AGES = {"day": 1, "week": 7, "month": 30}

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [
            ("day", _("older than a day")),
            ("week", _("older than a week")),
            ("month", _("older than 30 days")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        days = self.AGES.get(self.value() or "")
        if days is None:
            return queryset
        return queryset.filter(created_at__lte=timezone.now() - timedelta(days=days))


class FilingInline(NoEditing, admin.TabularInline):
    model = ReportFiling
    fields = ("reporter", "reason", "comment", "at")
    readonly_fields = fields
    extra = 0


@admin.register(Report)
class ReportAdmin(NoEditing, OperateViews, admin.ModelAdmin):
    list_display = ("id", "kind", "state", "reported_user", "reports", "created_at", "assignee")
    list_filter = ("state", AgeFilter, "kind")
    search_fields = ("reported_user__username", "subject_key", "resolution")
    list_select_related = ("reported_user", "assignee")
    fields = (
        "kind",
        "state",
        "reported_user",
        "match_id",
        "created_at",
        "updated_at",
        "assignee",
        "closed_at",
        "resolution",
        "evidence_shown",
    )
    readonly_fields = fields
    inlines = (FilingInline,)
    actions = ("take_selected",)
    change_form_template = "admin/moderation/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Report]:
        queryset: QuerySet[Report] = super().get_queryset(request)
        return queryset.annotate(filing_count=Count("filings"))

    @admin.display(description=_("reports"), ordering="filing_count")
    def reports(self, report: Report) -> int:
        return int(getattr(report, "filing_count", 0))

    @admin.display(description=_("evidence"))
    def evidence_shown(self, report: Report) -> str:
        return evidence_html(report)

    def has_take_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("moderation.change_report")

    @admin.action(description=_("Take the selected reports"), permissions=["take"])
    def take_selected(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        taken = 0
        for report in queryset.filter(state__in=[Report.State.OPEN, Report.State.IN_PROGRESS]):
            report_take(staff=request.user, report_id=report.pk)  # type: ignore[arg-type]
            taken += 1
        self.message_user(request, _("%(n)s reports taken.") % {"n": taken}, messages.SUCCESS)


class SanctionInline(NoEditing, admin.TabularInline):
    model = Sanction
    fk_name = "user"
    fields = ("kind", "reason", "starts_at", "ends_at", "lifted_at", "created_by")
    readonly_fields = fields
    extra = 0


@admin.register(Sanction)
class SanctionAdmin(NoEditing, OperateViews, admin.ModelAdmin):
    list_display = ("id", "user", "kind", "starts_at", "ends_at", "lifted_at", "created_by")
    list_filter = ("kind", ("lifted_at", admin.EmptyFieldListFilter))
    search_fields = ("user__username", "reason")
    list_select_related = ("user", "created_by")
    fields = (
        "user",
        "kind",
        "reason",
        "starts_at",
        "ends_at",
        "created_by",
        "report",
        "lifted_at",
        "lifted_by",
        "appealed_at",
    )
    readonly_fields = fields
    change_form_template = "admin/moderation/change_form.html"


@admin.register(StaffNote)
class StaffNoteAdmin(admin.ModelAdmin):
    list_display = ("at", "user", "author", "text")
    search_fields = ("user__username", "text")
    fields = ("user", "text")
    autocomplete_fields = ()
    list_select_related = ("user", "author")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: StaffNote, form: Any, change: bool) -> None:
        note = staff_note_add(staff=request.user, user=obj.user, text=obj.text)  # type: ignore[arg-type]
        obj.pk, obj.at, obj.author = note.pk, note.at, note.author


class StaffNoteInline(admin.TabularInline):
    model = StaffNote
    fk_name = "user"
    fields = ("at", "author", "text")
    readonly_fields = fields
    extra = 0

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ModerationLogEntry)
class ModerationLogEntryAdmin(NoEditing, admin.ModelAdmin):
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


def _user_page_with_moderation() -> None:
    """The user's page shows their sanctions and the staff notes about them."""

    if not admin.site.is_registered(User):
        return
    base = type(admin.site.get_model_admin(User))
    inlines = (*base.inlines, SanctionInline, StaffNoteInline)
    admin.site.unregister(User)
    admin.site.register(User, type("ModeratedUserAdmin", (base,), {"inlines": inlines}))


_user_page_with_moderation()
