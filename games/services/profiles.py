"""Public reads about players: a game's leaderboard and a player's profile.

Only what is public already: ratings, counts of finished matches, and finished matches'
results (a finished match's whole record is public). Nothing of a running match, and nothing
of a closed account.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils.translation import gettext_noop

from accounts.lookup import user_named
from core.errors import NotFound
from games.catalog import get_engine
from games.events import timestamp
from games.models import Match, Rating, Seat
from games.services.rating_scale import provisional, shown_rating

RECENT = 10
#: How far back the current streak is counted.
STREAK_WINDOW = 100


def _cursor_encode(ordinal: float, user_id: int) -> str:
    return base64.urlsafe_b64encode(f"{ordinal!r}|{user_id}".encode()).decode()


def _cursor_decode(cursor: str) -> tuple[float, int]:
    try:
        ordinal, user_id = base64.urlsafe_b64decode(cursor.encode("ascii")).decode().split("|")
        position = (float(ordinal), int(user_id))
    except (ValueError, UnicodeError, binascii.Error):
        raise NotFound(gettext_noop("Invalid cursor.")) from None
    if position[0] != position[0] or abs(position[0]) == float("inf"):  # NaN or infinite
        raise NotFound(gettext_noop("Invalid cursor."))
    return position


def _rating_number(value: float) -> float:
    return round(value, 2)


def _rating_fields(row: Rating) -> dict[str, Any]:
    """The shown rating (``rating_scale``) and whether it is provisional, beside openskill's
    raw values, which the API keeps for programs."""
    return {
        "rating": shown_rating(row.mu, row.sigma),
        "provisional": provisional(row.sigma),
        "ordinal": _rating_number(row.ordinal),
        "mu": _rating_number(row.mu),
        "sigma": _rating_number(row.sigma),
    }


def leaderboard(
    *, game: str, cursor: str | None, page_size: int, bots: bool = False
) -> tuple[list[Any], str | None]:
    """One page of the game's ranked players (``rating_rules``: enough rated matches against
    enough opponents), best first (ordinal, then user id), and the cursor of the next page
    (None on the last). Each entry carries its rank. People and bot accounts are ranked
    apart (``bots``): each is its own pool."""
    if get_engine(game) is None:
        raise NotFound(gettext_noop("No game with this slug."))
    rows = Rating.objects.filter(
        game=game,
        rated_matches__gte=max(1, int(settings.FACEDOWN_LEADERBOARD_MIN_MATCHES)),
        opponents__gte=int(settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS),
        user__is_active=True,
        user__is_bot=bots,
    )
    ranked = rows
    if cursor is not None:
        ordinal, user_id = _cursor_decode(cursor)
        rows = rows.filter(Q(ordinal__lt=ordinal) | Q(ordinal=ordinal, user_id__gt=user_id))
    page = list(rows.select_related("user").order_by("-ordinal", "user_id")[: page_size + 1])
    more = len(page) > page_size
    page = page[:page_size]
    first_rank = 1
    if page:
        top = page[0]
        first_rank += ranked.filter(
            Q(ordinal__gt=top.ordinal) | Q(ordinal=top.ordinal, user_id__lt=top.user_id)
        ).count()
    entries = [
        {
            "rank": first_rank + offset,
            "player": row.user.username,
            "bot": row.user.is_bot,
            **_rating_fields(row),
            "rated_matches": row.rated_matches,
            "played": row.played,
            "won": row.won,
        }
        for offset, row in enumerate(page)
    ]
    next_cursor = _cursor_encode(page[-1].ordinal, page[-1].user_id) if more else None
    return entries, next_cursor


def player_profile(username: str) -> dict[str, Any]:
    """The player's public profile (docs/api.md, "Players")."""
    user = user_named(username, active_only=True)
    if user is None:
        raise NotFound(gettext_noop("No player with this name."))
    ratings = [
        {
            "game": row.game,
            **_rating_fields(row),
            # Before a rated match there is nothing to show.
            **({} if row.rated_matches else {"rating": None, "ordinal": None}),
            "rated_matches": row.rated_matches,
            "played": row.played,
            "won": row.won,
        }
        for row in Rating.objects.filter(user=user).order_by("game")
    ]
    finished = list(
        Seat.objects.filter(user=user, match__status=Match.Status.FINISHED)
        .select_related("match")
        .only("index", "match__id", "match__game", "match__result", "match__finished_at")
        .order_by("-match__finished_at", "-match__id")[:STREAK_WINDOW]
    )
    outcomes = [seat.index in (seat.match.result or {}).get("winners", []) for seat in finished]
    streak = 0
    while streak < len(outcomes) and outcomes[streak] == outcomes[0]:
        streak += 1
    recent_ids = [seat.match.id for seat in finished[:RECENT]]
    players = _players_of(recent_ids)
    recent = [
        {
            "id": str(seat.match.id),
            "game": seat.match.game,
            "finished_at": timestamp(seat.match.finished_at),
            "seat": seat.index,
            "won": won,
            "players": players.get(seat.match.id, []),
            "result": seat.match.result,
        }
        for seat, won in zip(finished[:RECENT], outcomes, strict=False)
    ]
    return {
        "player": user.username,
        "bot": user.is_bot,
        "joined": timestamp(user.date_joined),
        "ratings": ratings,
        "streak": {
            "kind": ("won" if outcomes[0] else "lost") if outcomes else None,
            "length": streak,
        },
        "recent": recent,
    }


def _players_of(match_ids: list[Any]) -> dict[Any, list[str | None]]:
    """Who sat where in each match (player names, or bot names), by match id."""
    seated: dict[Any, list[str | None]] = {}
    rows = (
        Seat.objects.filter(match_id__in=match_ids)
        .select_related("user")
        .only("match_id", "index", "bot", "user__username")
        .order_by("match_id", "index")
    )
    for seat in rows:
        name = seat.user.username if seat.user is not None else (seat.bot or None)
        seated.setdefault(seat.match_id, []).append(name)
    return seated
