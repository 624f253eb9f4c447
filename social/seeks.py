"""The seek queue: a player asks for a match of a game, player count, options and time control;
equal seeks are paired first come, first served into a match (docs/api.md, "Seeks").

Pairing happens when a seek arrives, under its pool's lock (``social.locks``), so two seeks that
arrive together pair exactly once. The match is made through the games services (``match_create``
then ``match_join`` for every seeker, with their ``client_seed``), so it is created and started
through the unit of work like any other.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import play_allowed_check
from cardgames.engines.protocol import InvalidOptions
from core.errors import AlreadySeeking, NotFound, SeekClosed, ValidationFailed
from core.text import Text, seat_range, status_word
from games.catalog import get_engine
from games.events import timestamp
from games.models import Match, Rating
from games.services.deadlines import time_control_validate
from games.services.matches import SeatSpec, match_create, match_join
from games.services.rating_scale import from_ordinal
from social.locks import seek_pool_lock
from social.models import Seek


def _rating(user: User, game: str) -> int | None:
    """The player's rating in the game as players read it (a range is typed in those units),
    or None before their first rated match: a newcomer fits every range."""
    row = Rating.objects.filter(user=user, game=game, rated_matches__gt=0).only("ordinal").first()
    return None if row is None else from_ordinal(row.ordinal)


def rating_range_validate(raw: Any) -> dict[str, int] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not raw or set(raw) - {"min", "max"}:
        raise ValidationFailed(
            {"rating_range": [gettext_noop('An object {"min": n, "max": n}, or null.')]}
        )
    for key, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10_000:
            raise ValidationFailed(
                {f"rating_range.{key}": [gettext_noop("A JSON integer from 0 to 10000.")]}
            )
    if raw.get("min", 0) > raw.get("max", 10_000):
        raise ValidationFailed({"rating_range": [gettext_noop("min is above max.")]})
    return dict(raw)


def _pool(game: str, players: int, options: Any, time_control: Any) -> str:
    canonical = json.dumps([game, players, options, time_control], sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _accepts(seek: Seek, other: Seek) -> bool:
    """Whether ``seek`` admits ``other``'s player: a bot account only if the seek allows bots
    (or is a bot's own), and within its rating range (no rating: no constraint)."""
    if other.user.is_bot and not (seek.allow_bots or seek.user.is_bot):
        return False
    if not seek.rating_range:
        return True
    rating = _rating(other.user, seek.game)
    if rating is None:
        return True
    return bool(seek.rating_range.get("min", 0) <= rating <= seek.rating_range.get("max", 10_000))


def seek_post(
    *,
    user: User,
    game: str,
    players: int,
    options: dict[str, Any] | None = None,
    time_control: dict[str, Any] | None = None,
    rating_range: dict[str, int] | None = None,
    client_seed: str | None = None,
    allow_bots: bool = False,
) -> Seek:
    """Queue a seek, and pair it at once if enough equal seeks are waiting."""
    play_allowed_check(user)
    engine = get_engine(game)
    if engine is None:
        raise ValidationFailed({"game": [gettext_noop("Unknown game.")]})
    if not engine.min_players <= players <= engine.max_players:
        raise ValidationFailed(
            {"players": [seat_range(engine.name, engine.min_players, engine.max_players)]}
        )
    try:
        filled = engine.validate_options(options or {}, players)
    except InvalidOptions as exc:
        raise ValidationFailed(exc.errors) from exc
    time_control = time_control_validate(time_control, game=game)
    rating_range = rating_range_validate(rating_range)
    pool = _pool(game, players, filled, time_control)
    now = timezone.now()
    with transaction.atomic():
        seek_pool_lock(pool)
        Seek.objects.filter(pool=pool, status=Seek.Status.OPEN, expires_at__lte=now).update(
            status=Seek.Status.EXPIRED
        )
        if Seek.objects.filter(pool=pool, user=user, status=Seek.Status.OPEN).exists():
            raise AlreadySeeking()
        seek = Seek.objects.create(
            user=user,
            game=game,
            players=players,
            options=filled,
            time_control=time_control,
            pool=pool,
            rating_range=rating_range,
            client_seed=client_seed or "",
            allow_bots=allow_bots,
            created_at=now,
            expires_at=now + timedelta(seconds=settings.FACEDOWN_SEEK_TTL),
        )
        waiting = (
            Seek.objects.filter(pool=pool, status=Seek.Status.OPEN)
            .exclude(pk=seek.pk)
            .select_related("user")
            .order_by("created_at", "id")
        )
        partners = [w for w in waiting if _accepts(seek, w) and _accepts(w, seek)]
        partners = partners[: players - 1]
        if len(partners) == players - 1:
            _pair([*partners, seek])
    return seek


def _pair(group: list[Seek]) -> Match:
    """The oldest seeker creates the match (seat 0), the others in order; everyone joins with
    their own client seed, and the last join starts the match."""
    first = group[0]
    match = match_create(
        creator=first.user,
        game=first.game,
        seats=[
            SeatSpec(kind="me"),
            *(SeatSpec(kind="user", username=s.user.username) for s in group[1:]),
        ],
        options=first.options,
        time_control=first.time_control,
        ready=False,
        invitations=False,  # every seat's player sought this match: they join at once
    )
    for seek in group:
        match_join(match_id=match.id, user=seek.user, client_seed=seek.client_seed or None)
    for seek in group:
        seek.status, seek.match = Seek.Status.MATCHED, match
    Seek.objects.bulk_update(group, ["status", "match"])
    return match


def seek_cancel(*, seek_id: uuid.UUID, user: User) -> Seek:
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(pk=seek_id, user=user).first()
        if seek is None:
            raise NotFound(gettext_noop("No seek of yours with this id."))
        if _status(seek) != Seek.Status.OPEN:
            raise SeekClosed(
                Text(gettext_noop("The seek is %(status)s."), status=status_word(_status(seek)))
            )
        seek.status = Seek.Status.CANCELLED
        seek.save(update_fields=["status"])
    return seek


def seek_get(*, seek_id: uuid.UUID, user: User) -> Seek:
    seek = Seek.objects.select_related("user").filter(pk=seek_id, user=user).first()
    if seek is None:
        raise NotFound(gettext_noop("No seek of yours with this id."))
    return seek


def seeks_open(*, game: str | None = None) -> QuerySet[Seek]:
    """Every open seek not yet expired, oldest first."""
    seeks = Seek.objects.filter(status=Seek.Status.OPEN, expires_at__gt=timezone.now())
    if game:
        seeks = seeks.filter(game=game)
    return seeks.select_related("user").order_by("created_at", "id")


def _status(seek: Seek) -> str:
    """Expiry is read lazily: an open seek past its time reads as expired."""
    if seek.status == Seek.Status.OPEN and seek.expires_at <= timezone.now():
        return Seek.Status.EXPIRED
    return seek.status


def seek_resource(seek: Seek) -> dict[str, Any]:
    return {
        "id": str(seek.id),
        "player": seek.user.username,
        "game": seek.game,
        "players": seek.players,
        "options": seek.options,
        "time_control": seek.time_control,
        "rating_range": seek.rating_range,
        "allow_bots": seek.allow_bots,
        "bot": seek.user.is_bot,
        "status": _status(seek),
        "match": str(seek.match_id) if seek.match_id else None,
        "created_at": timestamp(seek.created_at),
        "expires_at": timestamp(seek.expires_at),
    }
