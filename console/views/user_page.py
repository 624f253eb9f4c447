"""The user page's sections: bot or person, ratings per game, current and recent matches,
tokens (name, scopes, last used; revoked with a reason), notification settings; and the
token revocation. What it shows of a match is its id, game, status and seat: public."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import AccessToken, User
from accounts.services import token_revoke
from console.forms import RevokeTokenForm
from console.records import staff_record
from console.texts import yes_no
from core.errors import FacedownError
from games.catalog import get_engine
from games.events import timestamp
from games.models import Match, Rating, Seat
from games.services.rating_scale import provisional, shown_rating
from moderation.models import ModerationLogEntry, Report, Sanction
from notify.models import NotificationSettings

RECENT = 10
NOTIFICATION_FIELDS = (
    "email_your_move",
    "email_deadline_soon",
    "email_match_finished",
    "email_invited",
    "email_proposals",
    "email_tournaments",
    "push_your_move",
    "push_deadline_soon",
    "push_proposals",
    "push_tournaments",
)


def _matches(user: User, *, active: bool) -> list[dict[str, Any]]:
    statuses = (
        [Match.Status.OPEN, Match.Status.ACTIVE]
        if active
        else [
            Match.Status.FINISHED,
            Match.Status.ABORTED,
        ]
    )
    seats = (
        Seat.objects.filter(user=user, match__status__in=statuses)
        .select_related("match")
        .only(
            "index",
            "forfeited",
            "controlled_by",
            "match__id",
            "match__game",
            "match__status",
            "match__step",
            "match__created_at",
            "match__finished_at",
        )
        .order_by("-match__created_at")[:RECENT]
    )
    return [
        {
            "url": reverse("admin:games_match_change", args=[seat.match.pk]),
            "id": seat.match.pk,
            "game": seat.match.game,
            "status": seat.match.status,
            "step": seat.match.step,
            "seat": seat.index,
            "note": _("Stand-in bot plays") if seat.controlled_by == Seat.Controller.BOT else "",
            "at": timestamp(seat.match.finished_at or seat.match.created_at),
        }
        for seat in seats
    ]


def _tokens(user: User, can_revoke: bool) -> list[dict[str, Any]]:
    return [
        {
            "name": token.name,
            "scopes": ", ".join(token.scopes) or "—",
            "created": timestamp(token.created_at),
            "expires": timestamp(token.expires_at) or _("never"),
            "last_used": timestamp(token.last_used_at) or _("never"),
            "revoke": reverse("admin:accounts_user_revoke_token", args=[user.pk, token.pk])
            if can_revoke
            else "",
        }
        for token in AccessToken.objects.filter(user=user).order_by("created_at")
    ]


def _notifications(user: User) -> list[tuple[str, str]]:
    found = NotificationSettings.objects.filter(user=user).first()
    if found is None:
        return [(_("Settings"), _("the defaults (every notice on)"))]
    rows = [
        (name.replace("_", " ").capitalize(), yes_no(getattr(found, name)))
        for name in NOTIFICATION_FIELDS
    ]
    verified = found.verified_email == user.email and bool(found.verified_email)
    rows.append((_("Verified address"), yes_no(verified)))
    return rows


def _moderation_log(user: User) -> list[dict[str, Any]]:
    entries = (
        ModerationLogEntry.objects.filter(subject_user=user)
        .select_related("actor")
        .order_by("-at", "-id")[:RECENT]
    )
    return [
        {
            "at": timestamp(entry.at),
            "actor": entry.actor.username if entry.actor is not None else _("the server"),
            "action": entry.action,
            "reason": entry.reason,
        }
        for entry in entries
    ]


def _reports(user: User) -> dict[str, list[dict[str, Any]]]:
    """Reports about the player and by them; never who filed a report about them (that is
    the queue's, one report at a time)."""

    def row(report: Report) -> dict[str, Any]:
        return {
            "url": reverse("admin:moderation_report_change", args=[report.pk]),
            "kind": report.get_kind_display(),
            "state": report.get_state_display(),
            "at": timestamp(report.created_at),
        }

    about = Report.objects.filter(reported_user=user).order_by("-created_at")[:RECENT]
    by = Report.objects.filter(filings__reporter=user).order_by("-created_at")[:RECENT]
    return {"about": [row(r) for r in about], "by": [row(r) for r in by]}


def _sanctions(user: User) -> list[dict[str, Any]]:
    return [
        {
            "kind": sanction.get_kind_display(),
            "reason": sanction.reason,
            "from": timestamp(sanction.starts_at),
            "until": timestamp(sanction.ends_at) or _("no end"),
            "lifted": timestamp(sanction.lifted_at) or "—",
        }
        for sanction in Sanction.objects.filter(user=user).order_by("-starts_at")[:RECENT]
    ]


def game_name(slug: str) -> str:
    """The catalogue's name of a game (its slug for one no longer served)."""
    engine = get_engine(slug)
    return engine.name if engine is not None else slug


def shown_text(rating: Rating) -> str:
    """The rating as players read it (games/services/rating_scale.py), "1540?" while provisional."""
    shown = str(shown_rating(rating.mu, rating.sigma))
    return shown + "?" if provisional(rating.sigma) else shown


def page_context(model_admin: Any, request: HttpRequest, user: User) -> dict[str, Any]:
    ratings = Rating.objects.filter(user=user).order_by("game")
    return {
        "user_kind": _("Bot") if user.is_bot else _("Person"),
        "ratings": [
            {
                "game": game_name(r.game),
                "rating": shown_text(r) if r.rated_matches else "—",
                "mu_sigma": f"{r.mu:.1f} ± {r.sigma:.1f}",
                "rated": r.rated_matches,
                "played": r.played,
                "won": r.won,
            }
            for r in ratings
        ],
        "current_matches": _matches(user, active=True),
        "recent_matches": _matches(user, active=False),
        "tokens": _tokens(user, model_admin.has_change_permission(request, user)),
        "notifications": _notifications(user),
        "moderation_log": _moderation_log(user)
        if request.user.has_perm("moderation.view_moderationlogentry")
        else None,
        "reports": _reports(user) if request.user.has_perm("moderation.view_report") else None,
        "sanctions": _sanctions(user)
        if request.user.has_perm("moderation.view_sanction")
        else None,
        "moderation_log_url": reverse("admin:moderation_moderationlogentry_changelist")
        + f"?q={user.username}",
    }


def revoke_token(
    model_admin: Any, request: HttpRequest, object_id: str, token_id: int
) -> HttpResponse:
    user = model_admin.get_object(request, object_id)
    if user is None or not model_admin.has_change_permission(request, user):
        raise DjangoPermissionDenied
    token = AccessToken.objects.filter(user=user, pk=token_id).first()
    change_url = reverse("admin:accounts_user_change", args=[user.pk])
    if token is None:
        model_admin.message_user(request, _("No such token."), messages.WARNING)
        return HttpResponseRedirect(change_url)
    form = RevokeTokenForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        reason = form.cleaned_data["reason"]
        assert isinstance(request.user, User)
        try:
            with transaction.atomic():
                token_revoke(user=user, token_id=token.pk)
                staff_record(
                    actor=request.user,
                    action="token_revoke",
                    reason=reason,
                    subject_user=user,
                    subject_type="token",
                    subject_id=str(token_id),
                    changes={"name": token.name, "scopes": ",".join(token.scopes)},
                )
        except FacedownError as exc:
            form.add_error(None, exc.detail)
        else:
            message = _("Token %(name)s revoked. Reason: %(reason)s") % {
                "name": token.name,
                "reason": reason,
            }
            model_admin.log_change(request, user, message)
            model_admin.message_user(request, message, messages.SUCCESS)
            return HttpResponseRedirect(change_url)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": user,
        "token": token,
        "title": _("Revoke the token %(name)s") % {"name": token.name},
        "form": form,
        "change_url": change_url,
    }
    return TemplateResponse(request, "console/reason_form.html", context)
