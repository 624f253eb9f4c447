"""The console's moderation pages beside the stock ones: a form per action (each asks for a
reason), checked by a permission here and again in the service, which writes the log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.lookup import user_named
from core.errors import FacedownError, ValidationFailed
from core.text import said
from moderation.forms import CloseReportForm, ReasonForm, SanctionForm
from moderation.models import Report, Sanction
from moderation.reports import report_close, report_take
from moderation.sanctions import sanction_impose, sanction_lift


@dataclass(frozen=True)
class Operation:
    title: Any
    form: type[forms.Form]
    permissions: tuple[str, ...]
    call: Callable[[HttpRequest, Any, dict[str, Any]], None]


def _take(request: HttpRequest, report: Report, data: dict[str, Any]) -> None:
    report_take(staff=request.user, report_id=report.pk)  # type: ignore[arg-type]


def _close(request: HttpRequest, report: Report, data: dict[str, Any]) -> None:
    report_close(
        staff=request.user,  # type: ignore[arg-type]
        report_id=report.pk,
        state=data["state"],
        resolution=data["reason"],
    )


def _impose(request: HttpRequest, report: Report | None, data: dict[str, Any]) -> None:
    user = user_named(data["username"], active_only=True)
    if user is None:
        raise ValidationFailed({"username": [gettext("No player with this name.")]})
    now = timezone.now()
    staff = request.user
    sanction_impose(
        staff=staff,  # type: ignore[arg-type]
        user=user,
        kind=data["kind"],
        reason=data["reason"],
        ends_at=data["ends_at"](now),
        report_id=report.pk if report is not None else None,
        now=now,
    )
    open_ = report is not None and report.state in (Report.State.OPEN, Report.State.IN_PROGRESS)
    if report is not None and open_ and staff.has_perm("moderation.change_report"):
        report_close(
            staff=staff,  # type: ignore[arg-type]
            report_id=report.pk,
            state=Report.State.HANDLED,
            resolution=data["reason"],
        )


def _lift(request: HttpRequest, sanction: Sanction, data: dict[str, Any]) -> None:
    sanction_lift(staff=request.user, sanction_id=sanction.pk, reason=data["reason"])  # type: ignore[arg-type]


class TakeForm(forms.Form):
    """Taking a report needs no reason: it says who works on it."""


OPERATIONS: dict[str, dict[str, Operation]] = {
    "report": {
        "take": Operation(_("Take"), TakeForm, ("moderation.change_report",), _take),
        "close": Operation(
            _("Handle or dismiss"), CloseReportForm, ("moderation.change_report",), _close
        ),
        "sanction": Operation(
            _("Sanction the reported player"),
            SanctionForm,
            ("moderation.view_report", "moderation.add_sanction"),
            _impose,
        ),
    },
    "sanction": {
        "lift": Operation(_("Lift"), ReasonForm, ("moderation.change_sanction",), _lift),
        "impose": Operation(
            _("Sanction a player"), SanctionForm, ("moderation.add_sanction",), _impose
        ),
    },
}


def _errors(form: forms.Form, exc: FacedownError) -> None:
    errors = exc.extra.get("errors") if isinstance(exc, ValidationFailed) else None
    if not errors:
        form.add_error(None, said(exc.detail))
        return
    for field, texts in errors.items():
        for text in texts:
            form.add_error(field if field in form.fields else None, said(text))


class OperateViews(admin.ModelAdmin):
    """For a ModelAdmin of moderation: ``<id>/operate/<name>/`` and ``operate/<name>/``
    (no object) pages, and their links on the change page for the permitted ones."""

    def _operations(self) -> dict[str, Operation]:
        return OPERATIONS[str(self.opts.model_name)]

    def get_urls(self) -> list[Any]:
        info = self.opts.app_label, self.opts.model_name
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/operate/<slug:operation>/",
                view(self.operate_view),
                name="{}_{}_operate".format(*info),
            ),
            path(
                "operate/<slug:operation>/",
                view(self.operate_view),
                name="{}_{}_operate_new".format(*info),
            ),
            *super().get_urls(),
        ]

    def _allowed(self, request: HttpRequest, operation: Operation) -> bool:
        return all(request.user.has_perm(p) for p in operation.permissions)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        name = f"admin:moderation_{self.opts.model_name}_operate"
        context = dict(extra_context or {})
        context["operations"] = [
            (reverse(name, args=[object_id, key]), operation.title)
            for key, operation in self._operations().items()
            if key != "impose" and self._allowed(request, operation)
        ]
        return super().change_view(request, object_id, form_url, extra_context=context)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        context = dict(extra_context or {})
        impose = self._operations().get("impose")
        if impose is not None and self._allowed(request, impose):
            context["impose_url"] = reverse(
                "admin:moderation_sanction_operate_new", args=["impose"]
            )
        return super().changelist_view(request, extra_context=context)

    def operate_view(
        self, request: HttpRequest, operation: str, object_id: str | None = None
    ) -> HttpResponse:
        found = self._operations().get(operation)
        if found is None or (object_id is None) != (operation == "impose"):
            raise DjangoPermissionDenied
        if not self._allowed(request, found):
            raise DjangoPermissionDenied
        original = None
        change_url = ""
        if object_id is not None:
            original = self.get_object(request, object_id)
            if original is None:
                raise DjangoPermissionDenied
            change_url = reverse(
                f"admin:moderation_{self.opts.model_name}_change",
                args=[original.pk],
            )
        initial = {}
        if isinstance(original, Report) and original.reported_user is not None:
            initial["username"] = original.reported_user.username
        form = found.form(request.POST if request.method == "POST" else None, initial=initial)
        if request.method == "POST" and form.is_valid():
            data = dict(form.cleaned_data)
            if isinstance(form, SanctionForm):
                data["ends_at"] = form.ends_at
            try:
                found.call(request, original, data)
            except FacedownError as exc:
                _errors(form, exc)
            else:
                self.message_user(
                    request, gettext("%(title)s: done.") % {"title": found.title}, messages.SUCCESS
                )
                return HttpResponseRedirect(
                    change_url or reverse("admin:moderation_sanction_changelist")
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": original,
            "title": found.title,
            "form": form,
            "change_url": change_url,
        }
        return TemplateResponse(request, "admin/moderation/operate.html", context)
