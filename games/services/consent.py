"""Whose challenges and invitations reach a player, and how many one account may send another.

Every path that asks another account to play calls ``invitations_allow`` before it notifies
anyone: a directed challenge, a bulk pairing, a match created with named seats, a rematch, a
seat offered to a substitute (but an operator's, made in the console with a reason), a
tournament invitation. Nobody is seated or entered by it: the recipient still accepts
(``/join``, ``/accept``, the tournament's ``/join``) or declines.

- **Refusal** (the recipient's account settings): ``invitations_from: "opponents"`` refuses
  senders the recipient never finished a match with; ``invitations_from_bots: false`` refuses
  bot accounts. A refused attempt is ``403 invitation_refused`` and creates and notifies
  nothing.
- **Budget**: one sender reaches one recipient at most ``FACEDOWN_INVITATIONS_PER_HOUR``
  times in a clock hour, every source together (``429 invitations_exhausted``). The counts are
  rows in the database, written in the caller's transaction: every process sees the same
  count, and a refused or rolled-back attempt counts nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import User
from core.errors import InvitationRefused, InvitationsExhausted
from games.models import InvitationCount, Match

#: The values of ``User.invitations_from``.
FROM_ANYONE, FROM_OPPONENTS = "anyone", "opponents"


def finished_together(a: int, b: int) -> bool:
    """Whether users ``a`` and ``b`` sat in one match that finished."""
    return (
        Match.objects.filter(status=Match.Status.FINISHED, seats__user_id=a)
        .filter(seats__user_id=b)
        .exists()
    )


def refusal_of(sender: User, recipient: User) -> bool:
    """True when ``recipient``'s settings refuse ``sender``'s challenges and invitations."""
    return (sender.is_bot and not recipient.invitations_from_bots) or (
        recipient.invitations_from == FROM_OPPONENTS
        and not finished_together(sender.pk, recipient.pk)
    )


def _window(now: datetime) -> datetime:
    return now.replace(minute=0, second=0, microsecond=0)


def _count(sender: User, counts: Counter[int], hour_start: datetime) -> dict[int, int]:
    """Add ``counts`` to the sender's rows of ``hour_start``; each recipient's new total."""
    table = connection.ops.quote_name(InvitationCount._meta.db_table)
    values = ", ".join(["(%s, %s, %s, %s)"] * len(counts))
    params: list[int | datetime] = []
    for recipient, n in sorted(counts.items()):
        params += [sender.pk, recipient, hour_start, n]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (sender_id, recipient_id, hour_start, count) VALUES {values} "
            "ON CONFLICT (sender_id, recipient_id, hour_start) "
            f"DO UPDATE SET count = {table}.count + EXCLUDED.count "
            "RETURNING recipient_id, count",
            params,
        )
        return {int(recipient): int(count) for recipient, count in cursor.fetchall()}


def invitations_allow(
    *, sender: User, recipients: Iterable[int], now: datetime | None = None
) -> None:
    """Check and count ``sender``'s invitations to ``recipients`` (user ids, one per
    invitation: a name twice is two), or raise ``InvitationRefused`` or
    ``InvitationsExhausted`` for the first recipient that refuses or is over budget; then
    nothing is counted. The sender's own id is skipped."""
    counts = Counter(pk for pk in recipients if pk != sender.pk)
    if not counts:
        return
    fields = ("username", "invitations_from", "invitations_from_bots")
    found = {user.pk: user for user in User.objects.filter(pk__in=list(counts)).only(*fields)}
    for pk in sorted(counts):
        recipient = found.get(pk)
        if recipient is not None and refusal_of(sender, recipient):
            raise InvitationRefused(username=recipient.username)
    limit = int(settings.FACEDOWN_INVITATIONS_PER_HOUR)
    with transaction.atomic():
        totals = _count(sender, counts, _window(now or timezone.now()))
        over = sorted(pk for pk, total in totals.items() if total > limit)
        if over:
            recipient = found.get(over[0])
            name = recipient.username if recipient is not None else ""
            raise InvitationsExhausted(username=name, limit=limit)


def invitation_counts_purge(*, now: datetime) -> int:
    """Remove the counts of hours before ``now``'s (the periodic purge): nothing reads them."""
    deleted, _ = InvitationCount.objects.filter(hour_start__lt=_window(now)).delete()
    return deleted
