"""Series: N matches of one game played one after another, seats rotated by one each time,
with cumulative standings.

Only the first match is created with the series: the next one is created, already started,
by a follow-up of the change that finishes the previous one (``series_next``), inside that
change's transaction, so it exists exactly once whoever finished the previous match. Its
players are the previous match's (whoever took an open seat stays), all seated as accepted:
accepting the first match accepts the series. A match of the series that is aborted ends the
series there.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import NotFound, ValidationFailed
from core.text import Text
from games.models import Match, Seat, Series
from games.services.in_transaction import in_transaction_register
from games.services.matches import SeatSpec, match_create
from games.services.rematch import match_following
from games.services.unit_of_work import MatchChange

MAX_MATCHES = 20


def series_create(
    *, creator: User, game: str, seats: list[SeatSpec], matches: int, **match_fields: Any
) -> Series:
    """Create the series and its first match (a match as ``match_create`` makes it)."""
    if not 1 <= matches <= MAX_MATCHES:
        raise ValidationFailed(
            {
                "matches": [
                    Text(gettext_noop("A series has 1 to %(high)s matches."), high=MAX_MATCHES)
                ]
            }
        )
    with transaction.atomic():
        series = Series.objects.create(game=game, created_by=creator, length=matches)
        match_create(creator=creator, game=game, seats=seats, series=series, **match_fields)
    return series


def series_next(tx: MatchChange) -> None:
    """A follow-up of every change: when it finished a match of a series that has matches
    left, create the next one, seats rotated, in the same transaction."""
    match = tx.match
    if match.series_id is None or not any(e.type == "match_finished" for e in tx.events):
        return
    index = (match.series_index or 0) + 1
    series = Series.objects.only("length", "created_by_id").get(pk=match.series_id)
    if index >= series.length:
        return
    match_following(
        match,
        tx.seats,
        creator_id=series.created_by_id,
        accepted=None,
        series_id=series.pk,
        series_index=index,
    )


in_transaction_register(series_next)


def series_read(series_id: uuid.UUID | str) -> dict[str, Any]:
    """The series with its matches so far and the cumulative standings (docs/api.md)."""
    try:
        key = uuid.UUID(str(series_id))
        series = Series.objects.select_related("created_by").get(pk=key)
    except (ValueError, Series.DoesNotExist):
        raise NotFound(gettext_noop("No series with this id.")) from None
    matches = list(
        Match.objects.filter(series=series)
        .defer("state")
        .order_by("series_index")
        .prefetch_related("seats__user")
    )
    first_seats: list[Seat] = sorted(matches[0].seats.all(), key=lambda s: s.index)
    count = len(first_seats)
    standings: list[dict[str, Any]] = [
        {
            "participant": p,
            "player": seat.user.username if seat.user is not None else None,
            "bot": seat.bot or None,
            "played": 0,
            "won": 0,
            "points": 0,
        }
        for p, seat in enumerate(first_seats)
    ]
    listed = []
    for match in matches:
        k = match.series_index or 0
        seats = sorted(match.seats.all(), key=lambda s: s.index)
        listed.append(
            {
                "id": str(match.id),
                "index": k,
                "status": match.status,
                "seats": [s.user.username if s.user is not None else s.bot for s in seats],
                "result": match.result,
            }
        )
        if match.status != Match.Status.FINISHED or match.result is None:
            continue
        for p, entry in enumerate(standings):
            seat = (p + k) % count  # participant p moves one seat on per match
            entry["played"] += 1
            entry["won"] += seat in match.result["winners"]
            scores = match.result["scores"]
            entry["points"] += scores[seat] if seat < len(scores) else 0
    ordered = sorted(standings, key=lambda e: (-e["won"], -e["points"], e["participant"]))
    return {
        "id": str(series.id),
        "game": series.game,
        "length": series.length,
        "created_by": series.created_by.username,
        "status": _status(series, matches),
        "matches": listed,
        "standings": ordered,
    }


def _status(series: Series, matches: list[Match]) -> str:
    last = matches[-1]
    if last.status == Match.Status.ABORTED:
        return "aborted"
    if len(matches) == series.length and last.status == Match.Status.FINISHED:
        return "finished"
    return "running"
