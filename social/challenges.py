"""Challenges: a player offers a match to a user, to anyone, or to a house bot; the other side
accepts (the match is created and started through the games services) or declines with a
reason (docs/programs.md). Bulk pairings create many invitations at once for leagues run
elsewhere: each match waits for its players to accept.

A challenge is answered once: accepting, declining and canceling lock its row, so two answers
that arrive together resolve one way. Expiry is read lazily, as for seeks. The challenged user
(and, after an answer, the challenger) hears of it on the account stream, after the commit.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import play_allowed_check
from cardgames.engines.protocol import InvalidOptions
from core.account_feed import feed_send
from core.errors import (
    BotsNotAllowed,
    ChallengeClosed,
    NotFound,
    PermissionDenied,
    ValidationFailed,
)
from core.text import Text, seat_range, status_word
from games.catalog import get_engine
from games.events import timestamp
from games.models import Match
from games.services.bot_seats import bot_options_validate
from games.services.consent import invitations_allow
from games.services.deadlines import time_control_validate
from games.services.matches import SeatSpec, match_create, match_join
from social.models import Challenge

MAX_BULK_MATCHES = 500
MAX_LIFETIME = timedelta(days=30)


def _status(challenge: Challenge) -> str:
    if challenge.status == Challenge.Status.PENDING and challenge.expires_at <= timezone.now():
        return Challenge.Status.EXPIRED
    return challenge.status


def challenge_resource(challenge: Challenge) -> dict[str, Any]:
    challenger: User = challenge.challenger
    to: User | None = challenge.to
    return {
        "id": str(challenge.id),
        "status": _status(challenge),
        "challenger": challenger.username,
        "challenger_bot": challenger.is_bot,
        "to": to.username if to is not None else None,
        "house_bot": challenge.house_bot or None,
        "game": challenge.game,
        "seats": challenge.seats,
        "options": challenge.options,
        "time_control": challenge.time_control,
        "rated": challenge.rated,
        "protocol": challenge.protocol,
        "allow_bots": challenge.allow_bots,
        "decline_reason": challenge.decline_reason or None,
        "match_id": str(challenge.match_id) if challenge.match_id else None,
        "created_at": timestamp(challenge.created_at),
        "expires_at": timestamp(challenge.expires_at),
    }


def _user_named(name: str, field: str) -> User:
    user = User.objects.filter(username__iexact=name, is_active=True).first()
    if user is None:
        raise ValidationFailed({field: [gettext_noop("Unknown user.")]})
    return user


def challenge_create(
    *,
    challenger: User,
    game: str,
    to: str | None = None,
    house_bot: str | None = None,
    seats: int | None = None,
    options: dict[str, Any] | None = None,
    time_control: dict[str, Any] | None = None,
    rated: bool = True,
    protocol: str = Match.Protocol.SEALED,
    expires_in: timedelta | None = None,
    allow_bots: bool = False,
) -> Challenge:
    """A new challenge; one to a house bot is accepted at once (the match starts). One between
    a person and a bot account is unrated from the start (they are rated apart)."""
    play_allowed_check(challenger)
    engine = get_engine(game)
    if engine is None:
        raise ValidationFailed({"game": [gettext_noop("Unknown game.")]})
    count = seats if seats is not None else engine.min_players
    if not max(2, engine.min_players) <= count <= engine.max_players:
        raise ValidationFailed(
            {"seats": [seat_range(engine.name, engine.min_players, engine.max_players)]}
        )
    try:
        filled = engine.validate_options(options or {}, count)
    except InvalidOptions as exc:
        raise ValidationFailed(exc.errors) from exc
    time_control = time_control_validate(time_control, game=game)
    if to is not None and house_bot is not None:
        raise ValidationFailed({"to": [gettext_noop("Name a user or a house bot, not both.")]})
    lifetime = expires_in or timedelta(seconds=settings.FACEDOWN_CHALLENGE_TTL)
    if not timedelta(minutes=1) <= lifetime <= MAX_LIFETIME:
        raise ValidationFailed({"expires_in": [gettext_noop("From 60 seconds to 30 days.")]})
    target = _user_named(to, "to") if to is not None else None
    if target is not None and target.pk == challenger.pk:
        raise ValidationFailed({"to": [gettext_noop("You cannot challenge yourself.")]})
    if house_bot is not None:
        bot_options_validate(game=game, name=house_bot, options=None, field="house_bot")
    if target is not None and target.is_bot != challenger.is_bot:
        rated = False
    now = timezone.now()
    with transaction.atomic():
        if target is not None:
            invitations_allow(sender=challenger, recipients=[target.pk], now=now)
        challenge = Challenge.objects.create(
            challenger=challenger,
            to=target,
            house_bot=house_bot or "",
            game=game,
            seats=count,
            options=filled,
            time_control=time_control,
            rated=rated,
            protocol=protocol,
            allow_bots=allow_bots and target is None and house_bot is None,
            created_at=now,
            expires_at=now + lifetime,
        )
        if house_bot is not None:
            _accepted(challenge, opponent=None)
    if target is not None:
        transaction.on_commit(lambda: _tell(target.pk, "challenge", challenge))
    return challenge


def _tell(user_id: int, kind: str, challenge: Challenge) -> None:
    feed_send([(user_id, kind, challenge_resource(challenge))])


def _accepted(challenge: Challenge, opponent: User | None) -> None:
    """Create the match: the challenger in seat 0, the opponent next, house bots after (all of
    them the house bot when the challenge named one). Both players consented: it starts."""
    bot = challenge.house_bot or settings.FACEDOWN_CHALLENGE_FILL_BOT
    specs = [SeatSpec(kind="me")]
    if opponent is not None:
        specs.append(SeatSpec(kind="user", username=opponent.username))
    specs += [SeatSpec(kind="bot", bot=bot)] * (challenge.seats - len(specs))
    match = match_create(
        creator=challenge.challenger,
        game=challenge.game,
        seats=specs,
        options=challenge.options,
        time_control=challenge.time_control,
        rated=challenge.rated,
        protocol=challenge.protocol,
        invitations=False,  # the opponent accepted the challenge: joined at once
    )
    if opponent is not None:
        match_join(match_id=match.id, user=opponent)
    challenge.status, challenge.match = Challenge.Status.ACCEPTED, match
    challenge.save(update_fields=["status", "match"])


def _locked(challenge_id: uuid.UUID) -> Challenge:
    challenge = (
        Challenge.objects.select_for_update(of=("self",))
        .select_related("challenger", "to")
        .filter(pk=challenge_id)
        .first()
    )
    if challenge is None:
        raise NotFound(gettext_noop("No challenge with this id."))
    return challenge


def _open(challenge: Challenge) -> None:
    status = _status(challenge)
    if status != Challenge.Status.PENDING:
        raise ChallengeClosed(
            Text(gettext_noop("The challenge is %(status)s."), status=status_word(status))
        )


def challenge_accept(*, challenge_id: uuid.UUID, user: User) -> Challenge:
    play_allowed_check(user)
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.to_id is not None and challenge.to_id != user.pk:
            raise NotFound(gettext_noop("No challenge with this id."))
        if challenge.challenger_id == user.pk:
            raise PermissionDenied(gettext_noop("You cannot accept your own challenge."))
        _open(challenge)
        if not challenge.challenger.is_active:  # its account closed (and canceled it)
            raise ChallengeClosed(gettext_noop("The challenger's account is closed."))
        if _bot_barred(challenge, user):
            raise BotsNotAllowed()
        _accepted(challenge, opponent=user)
    return challenge


def _bot_barred(challenge: Challenge, user: User) -> bool:
    """A bot account accepts an open challenge of a person only if it allows bots."""
    challenger: User = challenge.challenger
    return (
        bool(user.is_bot)
        and challenge.to_id is None
        and not (challenge.allow_bots or challenger.is_bot)
    )


def challenge_decline(*, challenge_id: uuid.UUID, user: User, reason: str) -> Challenge:
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.to_id != user.pk:
            raise NotFound(gettext_noop("No challenge to you with this id."))
        _open(challenge)
        challenge.status, challenge.decline_reason = Challenge.Status.DECLINED, reason
        challenge.save(update_fields=["status", "decline_reason"])
    transaction.on_commit(lambda: _tell(challenge.challenger_id, "challenge_declined", challenge))
    return challenge


def challenge_cancel(*, challenge_id: uuid.UUID, user: User) -> Challenge:
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenger_id != user.pk:
            raise NotFound(gettext_noop("No challenge of yours with this id."))
        _open(challenge)
        challenge.status = Challenge.Status.CANCELED
        challenge.save(update_fields=["status"])
    if challenge.to_id is not None:
        to_id = challenge.to_id
        transaction.on_commit(lambda: _tell(to_id, "challenge_canceled", challenge))
    return challenge


def challenge_get(*, challenge_id: uuid.UUID, user: User) -> Challenge:
    """A challenge its challenger or challenged may read; an open one anybody may."""
    mine = Q(challenger=user) | Q(to=user) | Q(to__isnull=True, house_bot="")
    challenge = (
        Challenge.objects.select_related("challenger", "to").filter(mine, pk=challenge_id).first()
    )
    if challenge is None:
        raise NotFound(gettext_noop("No challenge with this id."))
    return challenge


def challenges_pending(user: User) -> dict[str, list[dict[str, Any]]]:
    """The pending challenges to ``user``, from ``user``, and open to anyone (newest 200 each)."""
    pending = Challenge.objects.filter(
        status=Challenge.Status.PENDING, expires_at__gt=timezone.now()
    ).select_related("challenger", "to")
    lists = {
        "incoming": pending.filter(to=user),
        "outgoing": pending.filter(challenger=user),
        "open": pending.filter(to__isnull=True, house_bot="").exclude(challenger=user),
    }
    if user.is_bot:  # only those it may accept
        lists["open"] = lists["open"].filter(Q(allow_bots=True) | Q(challenger__is_bot=True))
    return {
        name: [challenge_resource(c) for c in query.order_by("-created_at")[:200]]
        for name, query in lists.items()
    }


def bulk_pairing_create(
    *,
    organiser: User,
    game: str,
    pairings: list[list[str]],
    options: dict[str, Any] | None = None,
    time_control: dict[str, Any] | None = None,
    rated: bool = True,
    protocol: str = Match.Protocol.SEALED,
) -> list[Match]:
    """One match per entry of ``pairings`` (the players' names, seat order), created by the
    organiser, who takes no seat: each player is invited and the match starts once all of
    them accepted (``POST /matches/{id}/join``); nobody plays a match they did not accept."""
    play_allowed_check(organiser)
    if not 1 <= len(pairings) <= MAX_BULK_MATCHES:
        raise ValidationFailed(
            {"pairings": [Text(gettext_noop("From 1 to %(high)s matches."), high=MAX_BULK_MATCHES)]}
        )
    created: list[Match] = []
    with transaction.atomic():
        # Every invitation of the request counted at once, before any match exists.
        invitations_allow(sender=organiser, recipients=_invitees(pairings))
        for index, names in enumerate(pairings):
            try:
                created.append(
                    match_create(
                        creator=organiser,
                        game=game,
                        seats=[SeatSpec(kind="user", username=name) for name in names],
                        options=options,
                        time_control=time_control,
                        rated=rated,
                        protocol=protocol,
                        invitations=False,
                    )
                )
            except ValidationFailed as exc:
                errors = exc.extra.get("errors", {})
                raise ValidationFailed(
                    {f"pairings.{index}.{field}": text for field, text in errors.items()}
                ) from None
    return created


def _invitees(pairings: list[list[str]]) -> list[int]:
    """The user id of every name of ``pairings`` that names a user, once per seat (an
    unknown name is refused by ``match_create``)."""
    names = [str(name).lower() for group in pairings for name in group]
    found = dict(
        User.objects.annotate(lower=Lower("username"))
        .filter(lower__in=set(names))
        .values_list("lower", "pk")
    )
    return [found[name] for name in names if name in found]
