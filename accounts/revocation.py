"""Token revocations that every web process sees within a second, through the database alone.

A revoking transaction (logout, token reset, password change, deactivation) appends a row to
``TokenRevocation`` numbered by ``RevocationClock``; the per-process token cache
(``accounts.authentication``) reads the rows past the last number it saw before it answers from
memory, at most ``FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS`` apart, and drops those users. So a
revoked token is refused by every machine within that interval, without Redis, and the cache
still keeps the token lookup off most requests: one small indexed read per process per interval
instead of one per request.

Apps above ``accounts`` learn of each revocation through ``revocation_listener_register``: the
live streams end the user's open streams once it commits (``live.revocations``, which also
records a web session's logout here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta

from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from accounts.models import RevocationClock, TokenRevocation

#: ``fn(user_ids)`` runs inside each revoking transaction (``revocation_listener_register``).
RevocationListener = Callable[[list[int]], None]
_listeners: list[RevocationListener] = []

# Long past any process's last read (a process idle longer than its cache lifetime starts over).
KEEP = timedelta(hours=1)


def _next_seq() -> int:
    """The next number, under the clock row's lock: a later revoker waits for this transaction
    to end, so whoever sees number n also sees every number below it."""
    if not RevocationClock.objects.filter(pk=1).update(seq=F("seq") + 1):
        # First use (or the table was emptied): start past any row still in the log.
        last = TokenRevocation.objects.aggregate(last=Max("seq"))["last"] or 0
        RevocationClock.objects.get_or_create(pk=1, defaults={"seq": last})
        RevocationClock.objects.filter(pk=1).update(seq=F("seq") + 1)
    return RevocationClock.objects.values_list("seq", flat=True).get(pk=1)


def revocation_listener_register(listener: RevocationListener) -> None:
    """``listener(user_ids)`` runs inside every revoking transaction, after its entry is
    written: the hook for the live streams (above ``accounts``) to close the users' open
    streams once it commits."""
    if listener not in _listeners:
        _listeners.append(listener)


def revocation_record(user_ids: Iterable[int]) -> None:
    """Call inside the transaction that revokes: the entry commits (or not) with the change."""
    ids = sorted(set(user_ids))
    if not ids:
        return
    with transaction.atomic():
        seq = _next_seq()
        TokenRevocation.objects.filter(at__lt=timezone.now() - KEEP).delete()
        TokenRevocation.objects.bulk_create(
            [TokenRevocation(seq=seq + offset, user_id=pk) for offset, pk in enumerate(ids)]
        )
        if len(ids) > 1:  # one number per row: the clock moves to the last one
            RevocationClock.objects.filter(pk=1).update(seq=seq + len(ids) - 1)
        for listener in _listeners:
            listener(ids)


def revocations_since(seq: int) -> tuple[int, set[int]]:
    """The last number and the users revoked after ``seq``, in one statement (one snapshot)."""
    rows = list(TokenRevocation.objects.filter(seq__gt=seq).values_list("seq", "user_id"))
    last = max((row[0] for row in rows), default=seq)
    return last, {row[1] for row in rows}


def revocation_last() -> int:
    return TokenRevocation.objects.aggregate(last=Max("seq"))["last"] or 0
