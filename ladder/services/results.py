"""A ladder match is over: its result rates its entrants in the ladder's own pool. An entrant
whose first move of the match was the clock's (it was not there) is paused at once, as an
absent player is withdrawn elsewhere; one that timed out (or revealed an illegal move) in too
many ladder matches in a row is paused too. The reason goes on its account stream and the
ladder page; it is paired again only once it resumes.

Run by the ``ladder_match_finished`` job after the match's change committed: the
``LadderMatch`` row is locked and marked recorded, so a job run twice records once.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.account_feed import FeedItem, feed_send
from games import dispatch, events
from games.models import Match, MatchEvent, Move, Seat
from games.services.ratings import MODEL
from ladder.locks import entries_lock
from ladder.models import LadderEntry, LadderMatch

#: Why an entry is paused (shown on the stream and the page).
PAUSED_TIMEOUTS = "timeouts"
PAUSED_ABSENT = "missed_first_move"
#: Moves the server made for a seat whose player did not move in time.
_CLOCK_MOVES = frozenset({Move.Source.TIMEOUT})
#: Forfeits that count as a strike (a resignation does not).
STRIKE_FORFEITS = frozenset({"timeout", "illegal_reveal"})


def _ranks(ranking: list[list[int]], seats: list[Seat]) -> list[float]:
    """Each seat's rank (1 best; ties share one); forfeited seats rank last."""
    ranks = [0.0] * len(seats)
    place = 0
    for place, group in enumerate(ranking, start=1):
        for index in group:
            ranks[index] = float(place)
    last = float(max(place, 1) + 1)
    for seat in seats:
        if seat.forfeited or ranks[seat.index] == 0:
            ranks[seat.index] = last
    return ranks


def _struck(match: Match) -> set[int]:
    """The seats that missed a deadline or forfeited for a strike reason."""
    rows = MatchEvent.objects.filter(
        match=match, type__in=(events.TIMEOUT.name, events.SEAT_FORFEITED.name)
    ).values_list("type", "data")
    struck: set[int] = set()
    for kind, data in rows:
        if data is not None and (
            kind == events.TIMEOUT.name or data.get("reason") in STRIKE_FORFEITS
        ):
            struck.add(int(data["seat"]))
    return struck


def _absent(match: Match) -> set[int]:
    """The seats whose first move (the server's forced moves aside) the clock made."""
    first: dict[int, str] = {}
    rows = Move.objects.filter(match=match).exclude(source=Move.Source.FORCED).order_by("step")
    for seat, source in rows.values_list("seat", "source"):
        first.setdefault(seat, source)
    return {seat for seat, source in first.items() if source in _CLOCK_MOVES}


def _rate(entries: list[LadderEntry], ranks: list[float]) -> None:
    teams = [[MODEL.rating(mu=e.mu, sigma=e.sigma)] for e in entries]
    rated = MODEL.rate(teams, ranks=ranks)
    for entry, team in zip(entries, rated, strict=True):
        entry.mu, entry.sigma = float(team[0].mu), float(team[0].sigma)


def _strike(entry: LadderEntry, struck: bool, absent: bool, now: datetime) -> FeedItem | None:
    entry.strikes = entry.strikes + 1 if struck or absent else 0
    if absent:
        reason = PAUSED_ABSENT
    elif entry.strikes >= int(settings.FACEDOWN_LADDER_STRIKES):
        reason = PAUSED_TIMEOUTS
    else:
        return None
    if entry.status != LadderEntry.Status.ACTIVE:
        return None
    entry.status, entry.paused_reason, entry.paused_at = LadderEntry.Status.PAUSED, reason, now
    return (
        entry.user_id,
        "ladder_paused",
        {"game": entry.game, "reason": reason, "strikes": entry.strikes},
    )


def match_finished(match_id: uuid.UUID, *, now: datetime | None = None) -> bool:
    """Record a ladder match that is over; False if it is not a ladder match, not over, or
    already recorded."""
    now = now or timezone.now()
    feed: list[FeedItem] = []
    with transaction.atomic():
        row = (
            LadderMatch.objects.select_for_update()
            .filter(pk=match_id, finished_at__isnull=True)
            .select_related("match")
            .first()
        )
        if row is None or not row.match.is_over:
            return False
        match = row.match
        locked = entries_lock(list(row.entries))
        entries = [locked[pk] for pk in row.entries]
        row.finished_at = now
        if match.status == Match.Status.FINISHED and match.result:
            seats = list(Seat.objects.filter(match=match).order_by("index"))
            ranking: list[list[int]] = [list(g) for g in match.result["ranking"]]
            row.ranking = ranking
            _rate(entries, _ranks(ranking, seats))
            winners = set(match.result["winners"])
            struck, absent = _struck(match), _absent(match)
            for index, entry in enumerate(entries):
                entry.played += 1
                entry.won += index in winners
                item = _strike(entry, index in struck, index in absent, now)
                if item is not None:
                    feed.append(item)
            fields: list[Any] = ["mu", "sigma", "played", "won", "strikes", "status"]
            LadderEntry.objects.bulk_update(entries, [*fields, "paused_reason", "paused_at"])
        row.save(update_fields=["finished_at", "ranking"])
        if feed:
            transaction.on_commit(partial(feed_send, feed), robust=True)
        # The entrants are free again: pair them now rather than at the next periodic wave.
        transaction.on_commit(partial(dispatch.enqueue, "ladder_pair"), robust=True)
    return True


def stalled_sweep() -> int:
    """Record every ladder match over but not recorded (a job that was lost)."""
    over = (Match.Status.FINISHED, Match.Status.ABORTED)
    ids = LadderMatch.objects.filter(finished_at__isnull=True, match__status__in=over)
    return sum(match_finished(pk) for pk in ids.values_list("pk", flat=True))
