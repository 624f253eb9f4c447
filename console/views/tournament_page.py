"""The organiser's controls for staff: which ones the tournament's state allows, and the
page that asks for the reason and calls the tournaments' service."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import transaction
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from console.forms import DisqualifyForm, TournamentReasonForm
from console.records import staff_record
from core.errors import FacedownError
from tournaments.models import Entry, Tournament
from tournaments.services.create import pause_allowed
from tournaments.services.entries import player_disqualify
from tournaments.services.lifecycle import (
    tournament_end,
    tournament_pause,
    tournament_resume,
    tournament_start,
)

S = Tournament.Status


@dataclass(frozen=True)
class Control:
    title: Any
    states: tuple[str, ...]
    call: Callable[[Tournament, User, dict[str, Any]], Any]


def _players(tournament: Tournament) -> list[str]:
    entries = tournament.entries.filter(joined=True).exclude(status=Entry.Status.DISQUALIFIED)
    return sorted(entries.values_list("user__username", flat=True))


CONTROLS: dict[str, Control] = {
    "start": Control(
        gettext_lazy("Start now"),
        (S.REGISTERING,),
        lambda t, by, d: tournament_start(tournament_id=t.pk, by=by),
    ),
    "pause": Control(
        gettext_lazy("Pause"),
        (S.RUNNING,),
        lambda t, by, d: tournament_pause(tournament_id=t.pk, by=by),
    ),
    "resume": Control(
        gettext_lazy("Resume"),
        (S.PAUSED,),
        lambda t, by, d: tournament_resume(tournament_id=t.pk, by=by),
    ),
    "disqualify": Control(
        gettext_lazy("Disqualify a player"),
        (S.REGISTERING, S.RUNNING, S.PAUSED),
        lambda t, by, d: player_disqualify(
            tournament_id=t.pk, by=by, username=d["username"], reason=d["reason"]
        ),
    ),
    "end": Control(
        gettext_lazy("End the tournament"),
        (S.REGISTERING, S.RUNNING, S.PAUSED),
        lambda t, by, d: tournament_end(tournament_id=t.pk, by=by),
    ),
}


def _allowed(tournament: Tournament, name: str) -> bool:
    control = CONTROLS[name]
    if tournament.status not in control.states:
        return False
    if name == "pause":
        return pause_allowed(tournament)
    if name == "disqualify":
        return bool(_players(tournament))
    return True


def controls_allowed(tournament: Tournament) -> list[tuple[str, str]]:
    return [
        (
            reverse("admin:tournaments_tournament_control", args=[tournament.pk, name]),
            str(control.title),
        )
        for name, control in CONTROLS.items()
        if _allowed(tournament, name)
    ]


def control(model_admin: Any, request: HttpRequest, object_id: str, name: str) -> HttpResponse:
    if not model_admin.has_control_permission(request):
        raise DjangoPermissionDenied
    tournament = model_admin.get_object(request, object_id)
    if tournament is None or name not in CONTROLS:
        return HttpResponseRedirect(reverse("admin:tournaments_tournament_changelist"))
    entry = CONTROLS[name]
    change_url = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
    data = request.POST if request.method == "POST" else None
    form: Form = (
        DisqualifyForm(data, players=_players(tournament))
        if name == "disqualify"
        else TournamentReasonForm(data)
    )
    if form.is_bound and form.is_valid():
        assert isinstance(request.user, User)
        reason = form.cleaned_data["reason"]
        player = form.cleaned_data.get("username")
        try:
            with transaction.atomic():  # the control and its log entry, or neither
                entry.call(tournament, request.user, form.cleaned_data)
                staff_record(
                    actor=request.user,
                    action=f"tournament_{name}",
                    reason=reason,
                    subject_user=User.objects.filter(username=player).first() if player else None,
                    subject_type="tournament",
                    subject_id=str(tournament.pk),
                    changes={"player": player} if player else {},
                )
        except FacedownError as exc:
            form.add_error(None, exc.detail)
        else:
            message = _("%(title)s: done. Reason: %(reason)s") % {
                "title": entry.title,
                "reason": reason,
            }
            model_admin.log_change(request, tournament, message)
            model_admin.message_user(request, message, messages.SUCCESS)
            return HttpResponseRedirect(change_url)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": tournament,
        "title": f"{entry.title}: {tournament.name}",
        "form": form,
        "change_url": change_url,
    }
    return TemplateResponse(request, "console/reason_form.html", context)
