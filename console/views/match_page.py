"""The match page for people, the operator's actions on it, and a finished match's transcript
and its verification. ModelAdmin (console/admins/matches.py) hands its requests here."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from console.forms import ReasonForm
from console.operations import OPERATIONS, Operation, operations_allowed, operator_of
from console.records import staff_record
from console.texts import time_control_text
from console.views import match_sections as sections
from console.views.table import table_html
from core.errors import FacedownError
from core.text import said
from games.events import timestamp
from games.models import Match
from games.services.audit import audit_transcript
from games.services.clocks_shown import paused_until_shown
from games.verify import verify_transcript


def _phase(match: Match) -> str:
    if match.status != Match.Status.ACTIVE:
        return "—"
    parts = [f"{match.phase_kind}, to act: {match.to_act or '—'}"]
    if match.disclose_submitted and match.phase_kind != Match.PhaseKind.TURN:
        parts.append(f"submitted: {match.submitted}")
    shown = sections.deadline(match)
    parts.append(f"deadline: {timestamp(shown) or '—'}")
    if shown is not None and shown < timezone.now():
        parts.append("OVERDUE")
    return "; ".join(parts)


def _facts(match: Match) -> list[tuple[str, Any]]:
    return [
        (_("Game"), match.game),
        (_("Status"), match.status),
        (_("Step"), match.step),
        (_("Phase"), _phase(match)),
        (_("Time control"), time_control_text(match.time_control)),
        (_("Paused until"), paused_until_shown(match) or "—"),
        (_("Options"), ", ".join(f"{k}: {v}" for k, v in sorted(match.options.items())) or "—"),
        (_("Protocol"), f"{match.protocol}; moves disclosed: {match.disclose_submitted}"),
        (_("Created"), f"{timestamp(match.created_at)} by {match.created_by or '—'}"),
        (_("Started"), timestamp(match.started_at) or "—"),
        (_("Finished"), timestamp(match.finished_at) or "—"),
        (_("Result"), json.dumps(match.result, sort_keys=True) if match.result else "—"),
        (_("Fairness"), sections.fairness(match)),
    ]


def page_context(model_admin: Any, request: HttpRequest, match: Match) -> dict[str, Any]:
    """What the match page shows; the actions only those the match's state allows."""
    groups: dict[str, list[tuple[str, str]]] = {}
    if model_admin.has_operate_permission(request):
        for name, operation in operations_allowed(match):
            url = reverse("admin:games_match_operate", args=[match.pk, name])
            groups.setdefault(str(operation.group), []).append((url, str(operation.title)))
    records: list[tuple[str, str]] = []
    if match.is_over:
        records = [
            (
                reverse("admin:games_match_transcript", args=[match.pk]),
                _("Download the transcript"),
            ),
            (reverse("admin:games_match_verify", args=[match.pk]), _("Verify the transcript")),
        ]
    return {
        "title": _("%(game)s match, %(status)s, step %(step)s")
        % {"game": match.game, "status": match.status, "step": match.step},
        "match_facts": _facts(match),
        "action_groups": list(groups.items()),
        "record_links": records,
        "table": table_html(match),
        "sections": [
            ("seats", _("Seats"), sections.seats_table(match)),
            ("clocks", _("Clocks (as a spectator sees them)"), sections.clocks_table(match)),
            ("proposals", _("Pause and abort proposals"), sections.proposals_table(match)),
            ("offers", _("Seat offers"), sections.substitutes_table(match)),
            ("tenures", _("Who played which steps"), sections.tenures_table(match)),
            ("chat", _("Chat"), sections.chat_table(match)),
        ],
        "events": sections.events_table(match),
    }


def _form_errors(form: ReasonForm, exc: FacedownError) -> None:
    errors = exc.extra.get("errors") or {}
    if not errors:
        form.add_error(None, said(exc.detail))
        return
    for field, problems in errors.items():
        target = field if field in form.fields else None
        for problem in problems:
            form.add_error(target, said(problem))


def _record(request: HttpRequest, match: Match, name: str, data: dict[str, Any]) -> None:
    changes = {k: v for k, v in data.items() if k != "reason" and v not in (None, "")}
    staff_record(
        actor=operator_of(request),
        action=f"match_{name.replace('-', '_')}",
        reason=data["reason"],
        subject_type="match",
        subject_id=str(match.pk),
        changes=changes,
    )


def operate(model_admin: Any, request: HttpRequest, object_id: str, name: str) -> HttpResponse:
    if not model_admin.has_operate_permission(request):
        raise DjangoPermissionDenied
    if name not in OPERATIONS:
        return HttpResponseRedirect(reverse("admin:games_match_changelist"))
    match = model_admin.get_object(request, object_id)
    if match is None:
        model_admin.message_user(request, f"No match with id {object_id}.", messages.WARNING)
        return HttpResponseRedirect(reverse("admin:games_match_changelist"))
    operation = OPERATIONS[name]
    title = str(operation.title)
    change_url = reverse("admin:games_match_change", args=[match.pk])
    if request.method == "POST":
        form = operation.form(request.POST, match=match)
        if form.is_valid():
            try:
                with transaction.atomic():  # the action and its log entry, or neither
                    operation.call(operator_of(request), match, form.cleaned_data)
                    _record(request, match, name, form.cleaned_data)
            except FacedownError as exc:
                _form_errors(form, exc)
            else:
                message = f"{title}: done. Reason: {form.cleaned_data['reason']}"
                model_admin.log_change(request, match, message)
                model_admin.message_user(request, message, messages.SUCCESS)
                return HttpResponseRedirect(change_url)
    else:
        form = operation.form(initial={"step": match.step}, match=match)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": match,
        "title": title,
        "form": form,
        "change_url": change_url,
        "operation": name,
    }
    return TemplateResponse(request, "console/match/operate.html", context)


def _over(model_admin: Any, request: HttpRequest, object_id: str) -> Match:
    if not model_admin.has_view_permission(request):
        raise DjangoPermissionDenied
    match = model_admin.get_object(request, object_id)
    if match is None or not match.is_over:
        raise DjangoPermissionDenied
    return match  # type: ignore[no-any-return]


def transcript(model_admin: Any, request: HttpRequest, object_id: str) -> HttpResponse:
    """The finished match's transcript (the API's ``/audit``), as a file."""
    match = _over(model_admin, request, object_id)
    body = json.dumps(audit_transcript(match_id=match.pk), sort_keys=True, indent=1)
    response = HttpResponse(body, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="facedown-{match.pk}.json"'
    return response


def verify(model_admin: Any, request: HttpRequest, object_id: str) -> HttpResponse:
    """The transcript checked end to end by ``games.verify``, as ``python -m games.verify``."""
    match = _over(model_admin, request, object_id)
    report = verify_transcript(audit_transcript(match_id=match.pk))
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": match,
        "title": _("Verify the transcript"),
        "change_url": reverse("admin:games_match_change", args=[match.pk]),
        "report": report,
    }
    return TemplateResponse(request, "console/match/verify.html", context)


def bulk(
    model_admin: Any,
    request: HttpRequest,
    queryset: QuerySet[Match],
    action: str,
    operation: Operation,
) -> HttpResponse | None:
    title = str(operation.title)
    name = next(key for key, value in OPERATIONS.items() if value is operation)
    form = operation.form(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        done, failed = 0, []
        for match in queryset:
            data = {**form.cleaned_data, "step": None}
            try:
                with transaction.atomic():
                    operation.call(operator_of(request), match, data)
                    _record(request, match, name, data)
            except FacedownError as exc:
                failed.append(f"{match.pk}: {said(exc.detail)}")
            else:
                done += 1
                model_admin.log_change(request, match, f"{title}: done. Reason: {data['reason']}")
        if done:
            model_admin.message_user(request, f"{title}: {done} match(es).", messages.SUCCESS)
        for failure in failed:
            model_admin.message_user(request, f"{title}: refused for {failure}", messages.ERROR)
        return None
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": title,
        "form": form,
        "queryset": queryset,
        "action": action,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "console/match/action_form.html", context)
