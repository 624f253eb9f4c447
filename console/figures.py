"""The home page's figures: what needs an operator now. Each is one query (or one broker
round trip) and comes with the changelist that lists what it counts. The overdue age, the
bot lag and the queue depth are the metrics' own (observability/collector.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import redis
from django.conf import settings
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Value
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.models import Match, Seat
from games.services.conditional import stalled_conditional_steps
from ladder.services.verification import verification_of
from moderation.models import Report
from observability.collector import (
    bot_waiting_oldest,
    overdue_oldest,
    queue_depth,
    queue_oldest_age,
)
from tournaments.models import Tournament

DAY = timedelta(days=1)


@dataclass(frozen=True)
class Figure:
    label: Any
    value: int | str
    url: str | None
    note: str = ""


def _list(name: str, query: str) -> str:
    return f"{reverse(f'admin:{name}_changelist')}?{query}"


def stalled_bot_matches(now: datetime) -> QuerySet[Match]:
    """Active matches with a bot seat still to move ``FACEDOWN_BOT_STALL_SECONDS`` after its
    step opened (the metric ``facedown_bot_task_lag_seconds`` measures the oldest)."""
    bit: Any = Value(1).bitleftshift(F("index"))  # type: ignore[arg-type]
    stalled = (
        Seat.objects.filter(
            match=OuterRef("pk"), controlled_by=Seat.Controller.BOT, forfeited=False
        )
        .annotate(
            acting=F("match__acting_mask").bitand(bit),
            moved=F("match__submitted_mask").bitand(bit),
        )
        .filter(acting__gt=0, moved=0)
    )
    latest = now - timedelta(seconds=settings.FACEDOWN_BOT_STALL_SECONDS)
    return (
        Match.objects.filter(status=Match.Status.ACTIVE, step_opened_at__lte=latest)
        .exclude(phase_kind=Match.PhaseKind.REVEAL)
        .filter(Exists(stalled))
    )


def overdue_count(now: datetime) -> int:
    """Matches whose public deadline passed (the match list's "overdue" filter): the row's own
    deadline picks the candidates, the public one decides (it is never earlier)."""
    from console.views.match_sections import deadline

    candidates = Match.objects.filter(status=Match.Status.ACTIVE, deadline__lt=now)
    return sum(
        1
        for match in candidates.defer("state", "seed").prefetch_related("seats")
        if (shown := deadline(match)) is not None and shown < now
    )


def stalled_conditional_matches(now: datetime) -> list[Any]:
    return sorted({match_id for match_id, _step in stalled_conditional_steps(now=now)}, key=str)


def _age(oldest: datetime | None, now: datetime) -> str:
    from console.texts import duration_words

    return duration_words((now - oldest).total_seconds()) if oldest else ""


def _queue() -> tuple[int | str, str]:
    broker = str(getattr(settings, "CELERY_BROKER_URL", ""))
    if not broker.startswith(("redis://", "rediss://", "unix://")):
        return "—", str(_("no broker: tasks run in the web process"))
    from console.texts import duration_words

    queue = str(getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery"))
    try:
        depth = queue_depth(broker, queue)
        oldest = queue_oldest_age(broker, queue)
    except redis.RedisError:
        return "?", str(_("the broker does not answer"))
    if oldest is None:
        return depth, ""
    return depth, str(_("oldest waiting %(age)s")) % {"age": duration_words(oldest)}


def report_figures(now: datetime) -> list[Figure]:
    """Open reports (open or being handled), the oldest one's age, and those older than a
    day: the queue's own list (moderation/admin.py) with its state and age filters."""
    waiting = Report.objects.filter(state__in=[Report.State.OPEN, Report.State.IN_PROGRESS])
    oldest = waiting.order_by("created_at").values_list("created_at", flat=True).first()
    return [
        Figure(
            _("Open reports"),
            waiting.filter(state=Report.State.OPEN).count(),
            _list("moderation_report", "state__exact=open"),
            _age(oldest, now),
        ),
        Figure(
            _("Reports waiting over a day"),
            waiting.filter(created_at__lte=now - DAY).count(),
            _list("moderation_report", "state__exact=open&age=day"),
        ),
    ]


def ladder_figures() -> list[Figure]:
    """The periodic verifier's count over finished ladder matches, and its failures (each
    with the verifier's problems on the match's ladder row)."""
    checked = verification_of()
    waiting = str(_("%(count)s waiting")) % {"count": checked.pending}
    return [
        Figure(
            _("Ladder transcripts verified"),
            checked.verified,
            _list("ladder_laddermatch", "verified__exact=1"),
            waiting,
        ),
        Figure(
            _("Ladder transcripts that failed verification"),
            checked.failed,
            _list("ladder_laddermatch", "verified__exact=0"),
        ),
    ]


def figures(now: datetime | None = None, *, reports: bool = False) -> list[Figure]:
    """``reports``: the reader may see the report queue (a moderator's right)."""
    now = now or timezone.now()
    since = now - DAY
    running = Q(status__in=[Tournament.Status.RUNNING, Tournament.Status.PAUSED])
    depth, queue_note = _queue()
    return [
        Figure(
            _("Active matches"),
            Match.objects.filter(status=Match.Status.ACTIVE).count(),
            _list("games_match", "status__exact=active"),
        ),
        Figure(
            _("Overdue deadlines"),
            overdue_count(now),
            _list("games_match", "overdue=yes"),
            _age(overdue_oldest(now), now),
        ),
        Figure(
            _("Stalled bot moves"),
            stalled_bot_matches(now).count(),
            _list("games_match", "stalled=bots"),
            _age(bot_waiting_oldest(), now),
        ),
        Figure(
            _("Stalled conditional-move jobs"),
            len(stalled_conditional_matches(now)),
            _list("games_match", "stalled=conditional"),
        ),
        Figure(_("Tasks waiting in the queue"), depth, None, queue_note),
        Figure(
            _("Running tournaments"),
            Tournament.objects.filter(running).count(),
            _list("tournaments_tournament", "status__in=running,paused"),
        ),
        Figure(
            _("Sign-ups in the last day"),
            User.objects.filter(date_joined__gte=since, is_bot=False).count(),
            _list("accounts_user", "joined=day"),
        ),
        Figure(
            _("Matches created in the last day"),
            Match.objects.filter(created_at__gte=since).count(),
            _list("games_match", "since=day"),
        ),
        *ladder_figures(),
        *(report_figures(now) if reports else []),
    ]


def running_tournaments() -> list[Tournament]:
    return list(
        Tournament.objects.filter(
            status__in=[Tournament.Status.RUNNING, Tournament.Status.PAUSED]
        ).order_by("name")[:20]
    )
