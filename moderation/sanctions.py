"""Sanctions (docs/moderation.md, "Sanctions"): warn, mute in chat, suspend from play, close.

Each has a reason, an optional end (none for a warning or a closing), a notice to the player
on their account stream, and an entry in the moderation log. The account's row carries the
ends in force (``accounts/sanctions.py`` reads them where every app may); a lift recomputes
them from the sanctions not lifted. A player appeals a sanction once: the appeal is a report
in the queue.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import FOREVER
from accounts.services import account_close
from core.account_feed import feed_send
from core.display_text import display_text_problem
from core.errors import AlreadyAppealed, NotFound, PermissionDenied, ValidationFailed
from core.text import at_most_characters
from games.events import timestamp
from games.services.players import invitations_decline
from games.services.suspensions import seats_to_stand_in_unrated
from moderation.log import staff_action_record
from moderation.models import Report, ReportFiling, Sanction
from social.accounts import challenges_cancel, challenges_decline, seeks_cancel
from tournaments.accounts import entries_withdraw

APPEAL_MAX = 2000
#: The account row's field for each sanction kind that lasts.
_FIELD = {
    Sanction.Kind.CHAT_MUTE: "chat_muted_until",
    Sanction.Kind.SUSPEND: "play_suspended_until",
}


def sanction_resource(sanction: Sanction) -> dict[str, Any]:
    """The sanction as its player reads it (never who gave it)."""
    return {
        "id": sanction.pk,
        "kind": sanction.kind,
        "reason": sanction.reason,
        "starts_at": timestamp(sanction.starts_at),
        "ends_at": timestamp(sanction.ends_at),
        "lifted_at": timestamp(sanction.lifted_at),
        "appealed": sanction.appealed_at is not None,
    }


def _staff(staff: User, permission: str) -> None:
    if not (staff.is_active and staff.is_staff and staff.has_perm(permission)):
        raise PermissionDenied(gettext_noop("You may not do this."))


def _text(field: str, text: str, limit: int) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationFailed({field: [gettext_noop("A reason is required.")]})
    if len(text) > limit:
        raise ValidationFailed({field: [at_most_characters(limit)]})
    problem = display_text_problem(text)
    if problem is not None:
        raise ValidationFailed({field: [problem]})
    return text


def _ends_refresh(user: User) -> None:
    """Write the ends in force onto the account row (locked by the caller)."""
    for kind, field in _FIELD.items():
        ends = [
            end or FOREVER
            for end in Sanction.objects.filter(
                user=user, kind=kind, lifted_at__isnull=True
            ).values_list("ends_at", flat=True)
        ]
        setattr(user, field, max(ends) if ends else None)
    user.save(update_fields=list(_FIELD.values()))


def _tell(user_id: int, kind: str, sanction: Sanction) -> None:
    feed_send([(user_id, kind, sanction_resource(sanction))])


def sanction_impose(
    *,
    staff: User,
    user: User,
    kind: str,
    reason: str,
    ends_at: datetime | None = None,
    report_id: int | None = None,
    now: datetime | None = None,
) -> Sanction:
    """Sanction ``user``. A suspension hands their seats in running matches to the stand-in
    bot (unrated for them), cancels their seeks and challenges, declines their invitations
    and withdraws their tournament entries; a closing closes the account as its own deletion
    does. Needs ``moderation.add_sanction`` (a closing: ``moderation.close_account``)."""
    _staff(staff, "moderation.add_sanction")
    if kind == Sanction.Kind.CLOSE:
        _staff(staff, "moderation.close_account")
    if kind not in Sanction.Kind.values:
        raise ValidationFailed({"kind": [gettext_noop("Unknown kind.")]})
    reason = _text("reason", reason, 2000)
    now = now or timezone.now()
    if kind in (Sanction.Kind.WARN, Sanction.Kind.CLOSE):
        ends_at = None
    elif ends_at is not None and ends_at <= now:
        raise ValidationFailed({"ends_at": [gettext_noop("The end must be in the future.")]})
    if user.pk == staff.pk or not user.is_active:
        raise ValidationFailed({"user": [gettext_noop("This account cannot be sanctioned.")]})
    with transaction.atomic():
        target = User.objects.select_for_update().get(pk=user.pk)
        report = None
        if report_id is not None:
            report = Report.objects.filter(pk=report_id).first()
            if report is None:
                raise NotFound(gettext_noop("No report with this id."))
        sanction = Sanction.objects.create(
            user=target,
            kind=kind,
            reason=reason,
            starts_at=now,
            ends_at=ends_at,
            created_by=staff,
            report=report,
        )
        if kind in _FIELD:
            _ends_refresh(target)
        staff_action_record(
            actor=staff,
            action=f"sanction_{kind}",
            reason=reason,
            subject_user=target,
            subject_type="report" if report is not None else "",
            subject_id=str(report.pk) if report is not None else "",
            changes={"sanction": sanction.pk, "ends_at": timestamp(ends_at)},
            now=now,
        )
        transaction.on_commit(partial(_tell, target.pk, "sanction", sanction))
    if kind == Sanction.Kind.SUSPEND:
        _play_stop(target, operator=staff.username, reason=reason)
    elif kind == Sanction.Kind.CLOSE:
        account_close(user=target)
    user.refresh_from_db()
    return sanction


def _play_stop(user: User, *, operator: str, reason: str) -> None:
    """What a suspension stops at once, each match and challenge in its own change."""
    seats_to_stand_in_unrated(user=user, operator=operator, reason=reason)
    for stop in (seeks_cancel, challenges_cancel, challenges_decline, invitations_decline):
        stop(user)
    entries_withdraw(user)


def sanction_lift(
    *, staff: User, sanction_id: int, reason: str, now: datetime | None = None
) -> Sanction:
    """End a mute or a suspension before its end (``moderation.change_sanction``). Seats a
    suspension handed to the stand-in stay with it until their match ends."""
    _staff(staff, "moderation.change_sanction")
    reason = _text("reason", reason, 2000)
    now = now or timezone.now()
    with transaction.atomic():
        sanction = Sanction.objects.select_for_update().filter(pk=sanction_id).first()
        if sanction is None:
            raise NotFound(gettext_noop("No sanction with this id."))
        if sanction.kind not in _FIELD or sanction.lifted_at is not None:
            raise ValidationFailed({"sanction": [gettext_noop("This sanction cannot be lifted.")]})
        target = User.objects.select_for_update().get(pk=sanction.user_id)
        sanction.lifted_at, sanction.lifted_by = now, staff
        sanction.save(update_fields=["lifted_at", "lifted_by"])
        _ends_refresh(target)
        staff_action_record(
            actor=staff,
            action=f"sanction_{sanction.kind}_lift",
            reason=reason,
            subject_user=target,
            subject_type="sanction",
            subject_id=str(sanction.pk),
            changes={"lifted_at": timestamp(now)},
            now=now,
        )
        transaction.on_commit(partial(_tell, target.pk, "sanction_lifted", sanction))
    return sanction


def sanctions_of(user: User) -> list[dict[str, Any]]:
    return [sanction_resource(s) for s in Sanction.objects.filter(user=user)]


def sanction_appeal(
    *, user: User, sanction_id: int, text: str, now: datetime | None = None
) -> Sanction:
    """The player's one appeal of their sanction: a report in the queue (409
    ``already_appealed`` the second time; 404 for another's sanction)."""
    text = _text("text", text, APPEAL_MAX)
    now = now or timezone.now()
    with transaction.atomic():
        sanction = Sanction.objects.select_for_update().filter(pk=sanction_id, user=user).first()
        if sanction is None:
            raise NotFound(gettext_noop("No sanction with this id."))
        if sanction.appealed_at is not None:
            raise AlreadyAppealed()
        sanction.appealed_at = now
        sanction.save(update_fields=["appealed_at"])
        report = Report.objects.create(
            kind=Report.Kind.APPEAL,
            subject_key=f"sanction:{sanction.pk}",
            reported_user=user,
            evidence={"sanction": sanction_resource(sanction), "appeal": text},
            created_at=now,
            updated_at=now,
        )
        ReportFiling.objects.create(
            report=report, reporter=user, reason=ReportFiling.Reason.APPEAL, comment=text, at=now
        )
    return sanction


def sanctions_running_out(*, now: datetime | None = None) -> int:
    """Mark the mutes and suspensions whose end has passed as over (``lifted_at`` their end,
    nobody lifting them) and log each as the system's entry, so the log tells when each
    ended. A check needs none of this: it compares the end with the time."""
    now = now or timezone.now()
    ended = 0
    over = Sanction.objects.filter(
        kind__in=list(_FIELD), lifted_at__isnull=True, ends_at__lte=now
    ).select_related("user")
    for sanction in over:
        with transaction.atomic():
            locked = Sanction.objects.select_for_update().get(pk=sanction.pk)
            if locked.lifted_at is not None:
                continue
            locked.lifted_at = locked.ends_at
            locked.save(update_fields=["lifted_at"])
            target = User.objects.select_for_update().get(pk=locked.user_id)
            _ends_refresh(target)
            staff_action_record(
                actor=None,
                action=f"sanction_{locked.kind}_ended",
                reason="",
                subject_user=target,
                subject_type="sanction",
                subject_id=str(locked.pk),
                changes={"ended_at": timestamp(locked.ends_at)},
                now=now,
            )
            ended += 1
    return ended
