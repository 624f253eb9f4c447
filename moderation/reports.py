"""Players' reports (docs/moderation.md, "Reports"): filed, merged by object, worked by staff.

A report keeps a snapshot of its evidence at its first filing: the chat message and the lines
around it, or the match as a spectator reads it (never a hidden card or a sealed move). The
reported player never learns who reported: only staff read the filings.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.lookup import user_named
from accounts.models import User
from core.display_text import display_text_problem
from core.errors import (
    AlreadyReported,
    NotFound,
    PermissionDenied,
    ReportingSuspended,
    ValidationFailed,
)
from core.text import at_most_characters
from games.services.presenters import match_resource
from games.services.reads import spectator_snapshot
from moderation.log import staff_action_record
from moderation.models import Report, ReportFiling
from social.chat import message_resource
from social.models import ChatMessage

#: Chat lines kept before and after a reported message.
CHAT_CONTEXT = 5
#: The rule for reporters whose reports are repeatedly dismissed: this many dismissed within
#: the window take the right to report away for the pause after the last of them.
DISMISSED_LIMIT = 3
DISMISSED_WINDOW = timedelta(days=30)
REPORTING_PAUSE = timedelta(days=7)
COMMENT_MAX = 1000
OPEN_STATES = (Report.State.OPEN, Report.State.IN_PROGRESS)
#: The reported object: its key, the reported player, the match, the evidence.
Subject = tuple[str, User | None, uuid.UUID | None, dict[str, Any]]


def reporting_paused_until(user: User, *, now: datetime) -> datetime | None:
    """When ``user`` may report again, or None if they may now (the documented rule)."""
    dismissed = list(
        ReportFiling.objects.filter(
            reporter=user,
            report__state=Report.State.DISMISSED,
            report__closed_at__gt=now - DISMISSED_WINDOW,
        )
        .order_by("-report__closed_at")
        .values_list("report__closed_at", flat=True)[:DISMISSED_LIMIT]
    )
    if len(dismissed) < DISMISSED_LIMIT or dismissed[0] is None:
        return None
    until = dismissed[0] + REPORTING_PAUSE
    return until if until > now else None


def _match_uuid(raw: Any) -> uuid.UUID:
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        raise NotFound(gettext_noop("No match with this id.")) from None


def _public_match(match_id: uuid.UUID) -> dict[str, Any]:
    """The match as a spectator reads it now."""
    return dict(match_resource(spectator_snapshot(match_id=match_id), detail=True))


def _chat_subject(reporter: User, match_id: Any, seq: Any) -> Subject:
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise ValidationFailed({"seq": [gettext_noop("The message's number is required.")]})
    key = _match_uuid(match_id)
    message = ChatMessage.objects.select_related("author").filter(match_id=key, seq=seq).first()
    if message is None:
        raise NotFound(gettext_noop("No chat message with this number."))
    if message.author_id == reporter.pk:
        raise ValidationFailed({"seq": [gettext_noop("You cannot report your own message.")]})
    around = (
        ChatMessage.objects.select_related("author")
        .filter(match_id=key, seq__gte=seq - CHAT_CONTEXT, seq__lte=seq + CHAT_CONTEXT)
        .order_by("seq")
    )
    evidence = {
        "match": str(key),
        "message": message_resource(message, staff=True),
        "context": [message_resource(line, staff=True) for line in around],
    }
    return f"chat:{key}:{seq}", message.author, key, evidence


def _player_subject(reporter: User, name: Any, match_id: Any) -> Subject:
    if not isinstance(name, str) or not name.strip():
        raise ValidationFailed({"player": [gettext_noop("The player's name is required.")]})
    player = user_named(name.strip(), active_only=True)
    if player is None:
        raise NotFound(gettext_noop("No player with this name."))
    if player.pk == reporter.pk:
        raise ValidationFailed({"player": [gettext_noop("You cannot report yourself.")]})
    evidence: dict[str, Any] = {
        "player": player.username,
        "is_bot": player.is_bot,
        "joined": player.date_joined.isoformat(),
    }
    key = None
    if match_id is not None:
        key = _match_uuid(match_id)
        evidence["match"] = _public_match(key)
    return f"player:{player.pk}", player, key, evidence


def _match_subject(match_id: Any) -> Subject:
    if match_id is None:
        raise ValidationFailed({"match": [gettext_noop("The match is required.")]})
    key = _match_uuid(match_id)
    return f"match:{key}", None, key, {"match": _public_match(key)}


def report_file(
    *,
    reporter: User,
    kind: str,
    reason: str,
    comment: str = "",
    match: Any = None,
    seq: Any = None,
    player: Any = None,
    now: datetime | None = None,
) -> ReportFiling:
    """File a report; one about an object already reported and still open merges into it.
    Refusals: 403 ``reporting_suspended`` (the dismissed-reports rule), 404 ``not_found``,
    409 ``already_reported``, 400 ``validation_error``."""
    now = now or timezone.now()
    if reason not in ReportFiling.Reason.values or reason == ReportFiling.Reason.APPEAL:
        raise ValidationFailed({"reason": [gettext_noop("Unknown reason.")]})
    comment = (comment or "").strip()
    if len(comment) > COMMENT_MAX:
        raise ValidationFailed({"comment": [at_most_characters(COMMENT_MAX)]})
    if comment and (problem := display_text_problem(comment)) is not None:
        raise ValidationFailed({"comment": [problem]})
    paused = reporting_paused_until(reporter, now=now)
    if paused is not None:
        raise ReportingSuspended(until=paused.isoformat().replace("+00:00", "Z"))
    subject: Subject
    if kind == Report.Kind.CHAT_MESSAGE:
        subject = _chat_subject(reporter, match, seq)
    elif kind == Report.Kind.PLAYER:
        subject = _player_subject(reporter, player, match)
    elif kind == Report.Kind.MATCH:
        subject = _match_subject(match)
    else:
        raise ValidationFailed({"kind": [gettext_noop("Unknown kind.")]})
    key, reported, match_id, evidence = subject
    return _filed(
        kind=kind,
        key=key,
        reported=reported,
        match_id=match_id,
        evidence=evidence,
        reporter=reporter,
        reason=reason,
        comment=comment,
        now=now,
    )


def _filed(
    *,
    kind: str,
    key: str,
    reported: User | None,
    match_id: uuid.UUID | None,
    evidence: dict[str, Any],
    reporter: User,
    reason: str,
    comment: str,
    now: datetime,
) -> ReportFiling:
    """The filing, on the open report about ``key`` (made if there is none)."""
    for _attempt in range(2):
        try:
            with transaction.atomic():
                report = (
                    Report.objects.select_for_update()
                    .filter(subject_key=key, state__in=OPEN_STATES)
                    .first()
                )
                if report is None:
                    report = Report.objects.create(
                        kind=kind,
                        subject_key=key,
                        reported_user=reported,
                        match_id=match_id,
                        evidence=evidence,
                        created_at=now,
                        updated_at=now,
                    )
                elif ReportFiling.objects.filter(report=report, reporter=reporter).exists():
                    raise AlreadyReported()
                else:
                    report.updated_at = now
                    report.save(update_fields=["updated_at"])
                return ReportFiling.objects.create(
                    report=report, reporter=reporter, reason=reason, comment=comment, at=now
                )
        except IntegrityError:
            continue  # another first filing of the same object won the race: merge into it
    raise AlreadyReported()


def _staff(staff: User, permission: str) -> None:
    if not (staff.is_active and staff.is_staff and staff.has_perm(permission)):
        raise PermissionDenied(gettext_noop("You may not do this."))


def _reason(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationFailed({"reason": [gettext_noop("A reason is required.")]})
    return text


def _locked(report_id: int) -> Report:
    report = Report.objects.select_for_update().filter(pk=report_id).first()
    if report is None:
        raise NotFound(gettext_noop("No report with this id."))
    return report


def report_take(*, staff: User, report_id: int, now: datetime | None = None) -> Report:
    """A moderator takes an open report: it is in progress, theirs."""
    _staff(staff, "moderation.change_report")
    with transaction.atomic():
        report = _locked(report_id)
        if report.state not in OPEN_STATES:
            raise ValidationFailed({"state": [gettext_noop("This report is closed.")]})
        before = report.state
        report.state, report.assignee = Report.State.IN_PROGRESS, staff
        report.save(update_fields=["state", "assignee"])
        staff_action_record(
            actor=staff,
            action="report_take",
            reason="",
            subject_user=report.reported_user,
            subject_type="report",
            subject_id=str(report.pk),
            changes={"state": [before, report.state]},
            now=now,
        )
    return report


def report_close(
    *, staff: User, report_id: int, state: str, resolution: str, now: datetime | None = None
) -> Report:
    """Close a report as handled or dismissed, with the resolution (the log's reason)."""
    _staff(staff, "moderation.change_report")
    if state not in (Report.State.HANDLED, Report.State.DISMISSED):
        raise ValidationFailed({"state": [gettext_noop("Handled or dismissed.")]})
    resolution = _reason(resolution)
    now = now or timezone.now()
    with transaction.atomic():
        report = _locked(report_id)
        if report.state not in OPEN_STATES:
            raise ValidationFailed({"state": [gettext_noop("This report is closed.")]})
        before = report.state
        report.state, report.resolution, report.closed_at = state, resolution, now
        report.assignee = report.assignee or staff
        report.save(update_fields=["state", "resolution", "closed_at", "assignee"])
        staff_action_record(
            actor=staff,
            action=f"report_{state}",
            reason=resolution,
            subject_user=report.reported_user,
            subject_type="report",
            subject_id=str(report.pk),
            changes={"state": [before, state]},
            now=now,
        )
    return report
