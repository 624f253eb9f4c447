"""``deadline_soon``: reminders that a move is due within 24 hours, then within 1 hour.

A periodic job (Celery beat, or the embedded worker) scans the active matches whose deadline
falls within the largest window. A seat still to move hears once per step and window
(``DeadlineNotice`` is the ledger, its unique constraint settles two scanners racing). A window
counts only if the phase opened before it began: a step of ten minutes gets no "within 1 hour"
reminder the moment it opens, and a live game gets none at all. When both windows are due at
once (the scan was late), only the nearer one is sent.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.models import Match, Seat
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
    "step",
    "phase_kind",
    "acting_mask",
    "submitted_mask",
    "deadline",
    "step_opened_at",
)


def _due_window(match: Match, now: datetime) -> str | None:
    """The nearest window the deadline is in, if the phase opened before that window began."""
    assert match.deadline is not None
    left = match.deadline - now
    opened = match.step_opened_at or now
    for name, span in WINDOWS:
        if left <= span and match.deadline - opened > span:
            return name
    return None


def deadline_soon_scan(*, now: datetime | None = None, limit: int = 1000) -> list[Notification]:
    """Send the reminders now due; returns them (each appears once, across scans)."""
    now = now or timezone.now()
    horizon = now + max(span for _, span in WINDOWS)
    matches = (
        Match.objects.filter(status=Match.Status.ACTIVE, deadline__gt=now, deadline__lte=horizon)
        .only(*_FIELDS)
        .order_by("deadline")
        .prefetch_related("seats")[:limit]
    )
    candidates = [(match, window) for match in matches if (window := _due_window(match, now))]
    # Reminders sent by earlier scans, in one query: most candidates have had theirs.
    sent_before = set(
        DeadlineNotice.objects.filter(match_id__in=[m.pk for m, _ in candidates]).values_list(
            "match_id", "step", "phase", "user_id", "window"
        )
    )
    due: list[tuple[Match, Seat, str]] = []
    for match, window in candidates:
        waiting = match.acting_mask & ~match.submitted_mask
        for seat in match.seats.all():
            if (
                seat.user_id is not None
                and waiting >> seat.index & 1
                and not seat.forfeited
                and seat.controlled_by == Seat.Controller.PLAYER
                and (match.pk, match.step, match.phase_kind, seat.user_id, window)
                not in sent_before
            ):
                due.append((match, seat, window))
    sent: list[Notification] = []
    for match, seat, window in due:
        assert seat.user_id is not None and match.deadline is not None
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
                    "deadline": match.deadline.isoformat().replace("+00:00", "Z"),
                    "within": window,
                },
            )
        )
    notifications_send(sent)
    return sent
