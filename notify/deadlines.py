"""``deadline_soon``: reminders that a seat's clock runs out within 24 hours, then within
1 hour, and that a byo-yomi clock's main time is spent.

A periodic job (Celery beat, or the embedded worker) scans the active matches whose earliest
clock runs out within the largest window, and the byo-yomi matches. A seat still to move hears
once per step and window (``DeadlineNotice`` is the ledger, its unique constraint settles two
scanners racing), about its own clock only. A window counts only if the clock started before
the window began: a step of ten minutes gets no "within 1 hour" reminder the moment it opens,
and a live game gets none at all. When both windows are due at once (the scan was late), only
the nearer one is sent.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games.models import Match, Seat
from games.services.clocks_shown import seat_deadline
from games.time_controls import TimeControl, overtime_at, parse
from notify.dispatch import notifications_send
from notify.kinds import Notification
from notify.models import DeadlineNotice

WINDOWS: tuple[tuple[str, timedelta], ...] = (
    (DeadlineNotice.Window.HOUR, timedelta(hours=1)),
    (DeadlineNotice.Window.DAY, timedelta(hours=24)),
)


_FIELDS = (
    "id",
    "game",
    "status",
    "step",
    "phase_kind",
    "acting_mask",
    "submitted_mask",
    "deadline",
    "step_opened_at",
    "time_control",
    "clocks",
)


def _started(match: Match, seat: int) -> datetime | None:
    """When the seat's clock started counting in this phase."""
    if match.clocks is not None and match.phase_kind != Match.PhaseKind.REVEAL:
        return parse(match.clocks[seat]["since"])
    return match.step_opened_at


def _due_window(match: Match, seat: int, now: datetime) -> tuple[str, datetime] | None:
    """The nearest window the seat's own deadline is in, if its clock started before that
    window began; with the deadline."""
    deadline = seat_deadline(match, seat)
    if deadline is None or deadline <= now:
        return None
    left = deadline - now
    started = _started(match, seat) or now
    for name, span in WINDOWS:
        if left <= span and deadline - started > span:
            return name, deadline
    return None


def _byoyomi_began(match: Match, seat: int, now: datetime) -> tuple[str, datetime] | None:
    if not match.time_control or match.clocks is None:
        return None
    tc = TimeControl.of(match.time_control)
    began = overtime_at(tc, match.clocks[seat])
    deadline = seat_deadline(match, seat)
    if began is None or deadline is None or not began <= now < deadline:
        return None
    return DeadlineNotice.Window.BYOYOMI, deadline


def deadline_soon_scan(*, now: datetime | None = None, limit: int = 1000) -> list[Notification]:
    """Send the reminders now due; returns them (each appears once, across scans)."""
    now = now or timezone.now()
    horizon = now + max(span for _, span in WINDOWS)
    matches = (
        Match.objects.filter(
            Q(deadline__lte=horizon) | Q(time_control__kind="byoyomi"),
            status=Match.Status.ACTIVE,
            deadline__isnull=False,
        )
        .only(*_FIELDS)
        .order_by("deadline")
        .prefetch_related("seats")[:limit]
    )
    candidates: list[tuple[Match, Seat, str, datetime]] = []
    for match in matches:
        waiting = match.acting_mask & ~match.submitted_mask
        for seat in match.seats.all():
            if (
                seat.user_id is None
                or not waiting >> seat.index & 1
                or seat.forfeited
                or seat.controlled_by != Seat.Controller.PLAYER
            ):
                continue
            for found in (
                _due_window(match, seat.index, now),
                _byoyomi_began(match, seat.index, now),
            ):
                if found is not None:
                    candidates.append((match, seat, *found))
    # Reminders sent by earlier scans, in one query: most candidates have had theirs.
    sent_before = set(
        DeadlineNotice.objects.filter(match_id__in={m.pk for m, _, _, _ in candidates}).values_list(
            "match_id", "step", "phase", "user_id", "window"
        )
    )
    due = [
        (match, seat, window, deadline)
        for match, seat, window, deadline in candidates
        if (match.pk, match.step, match.phase_kind, seat.user_id, window) not in sent_before
    ]
    sent: list[Notification] = []
    for match, seat, window, deadline in due:
        assert seat.user_id is not None
        try:
            with transaction.atomic():
                DeadlineNotice.objects.create(
                    match_id=match.pk,
                    step=match.step,
                    phase=match.phase_kind,
                    user_id=seat.user_id,
                    window=window,
                )
                if window == DeadlineNotice.Window.HOUR:  # the day's reminder is past now
                    DeadlineNotice.objects.bulk_create(
                        [
                            DeadlineNotice(
                                match_id=match.pk,
                                step=match.step,
                                phase=match.phase_kind,
                                user_id=seat.user_id,
                                window=DeadlineNotice.Window.DAY,
                            )
                        ],
                        ignore_conflicts=True,
                    )
        except IntegrityError:
            continue  # sent already (or by another scanner right now)
        sent.append(
            Notification(
                id=f"deadline_soon:{match.pk}:{match.step}:{match.phase_kind}:{window}:{seat.user_id}",
                user_id=seat.user_id,
                type="deadline_soon",
                match_id=str(match.pk),
                at=now,
                data={
                    "game": match.game,
                    "step": match.step,
                    "phase": match.phase_kind,
                    "deadline": deadline.isoformat().replace("+00:00", "Z"),
                    "within": window,
                },
            )
        )
    notifications_send(sent)
    return sent
