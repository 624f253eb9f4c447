"""Creating matches and managing their seats: create, join, decline, resign."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import play_allowed_check
from cardgames.engines.protocol import InvalidOptions
from core.errors import (
    AlreadySeated,
    MatchNotActive,
    NotSeated,
    PermissionDenied,
    SeatTaken,
    ValidationFailed,
)
from core.text import Text, seat_between, seat_range
from games import events
from games.catalog import get_engine
from games.models import Match, Seat
from games.services.bot_seats import bot_options_validate
from games.services.consent import invitations_allow
from games.services.deadlines import time_control_validate
from games.services.fairness import deal_rng, seed_new
from games.services.steps import (
    match_abort_in,
    match_play_on,
    match_start,
    seat_forfeit,
    seats_public,
)
from games.services.unit_of_work import MatchChange, match_change, match_new

MSG_UNKNOWN_GAME = "Unknown game."
MSG_UNKNOWN_USER = "Unknown user."
MSG_NO_OPEN_SEAT = "No open seat is left in this match."


@dataclass(frozen=True)
class SeatSpec:
    """One entry of ``seats`` at creation: the creator, an invitation, or an open seat."""

    kind: str  # "me" | "user" | "open" | "bot"
    username: str | None = None
    bot: str | None = None
    options: dict[str, Any] | None = None


def _seat_rows(*, match: Match, creator: User, specs: list[SeatSpec], ready: bool) -> list[Seat]:
    names = [spec.username or "" for spec in specs if spec.kind == "user"]
    # The creator's row is read again with the others (same query): request.user may come
    # from the token cache, and its ``offsite_channels`` must be as fresh as the others'.
    users = _users_named([*names, creator.username])
    rows: list[Seat] = []
    seated: set[int] = set()
    for index, spec in enumerate(specs):
        if spec.kind == "open":
            rows.append(Seat(match=match, index=index))
            continue
        if spec.kind == "bot":
            name = spec.bot or ""
            options = bot_options_validate(
                game=match.game, name=name, options=spec.options, field=f"seats.{index}"
            )
            rows.append(
                Seat(
                    match=match,
                    index=index,
                    bot=name,
                    bot_options=options,
                    accepted=True,
                    controlled_by=Seat.Controller.BOT,
                )
            )
            continue
        if spec.kind == "me":
            user, accepted, invited = creator, ready, False
            me = users.get(creator.username.lower())
            offsite = me.offsite_channels if me is not None else None
        else:
            found = users.get((spec.username or "").lower())
            if found is None:
                raise ValidationFailed({f"seats.{index}.user": [MSG_UNKNOWN_USER]})
            user, accepted, invited = found, False, True
            offsite = found.offsite_channels
        if user.pk in seated:
            raise AlreadySeated(
                Text(gettext_noop("%(name)s is given more than one seat."), name=user.username)
            )
        seated.add(user.pk)
        seat = Seat(match=match, index=index, user=user, accepted=accepted, invited=invited)
        # As the match lock reads it (notify/offsite.py): no outbound job for a user who has
        # no destination outside the site.
        seat.user_offsite = offsite  # type: ignore[attr-defined]
        rows.append(seat)
    return rows


def _users_named(names: list[str]) -> dict[str, User]:
    """The users with these names in any case, by lower-case name (names are unique regardless
    of case: the lookup reads that unique index, ``LOWER(username)``): only what a new seat
    needs (id, name, whether they have destinations outside the site), as the match lock reads
    a seat's player (games/locks.py); any other field is read on first use. Plain SQL on the
    primary: compiling the queryset cost about a tenth of a creation's CPU."""
    table = connection.ops.quote_name(User._meta.db_table)
    marks = ", ".join(["%s"] * len(names))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, username, offsite_channels, is_bot FROM {table} "
            f"WHERE LOWER(username) IN ({marks})",
            [name.lower() for name in names],
        )
        rows = cursor.fetchall()
    columns = ["id", "username", "offsite_channels", "is_bot"]
    return {  # bool(): SQLite hands a boolean back as 0 or 1
        name.lower(): User.from_db(
            connection.alias, columns, [pk, name, bool(offsite), bool(is_bot)]
        )
        for pk, name, offsite, is_bot in rows
    }


def match_create(
    *,
    creator: User,
    game: str,
    seats: list[SeatSpec],
    options: dict[str, Any] | None = None,
    protocol: str = Match.Protocol.SEALED,
    disclose_submitted: bool = True,
    ready: bool = True,
    time_control: dict[str, Any] | None = None,
    rated: bool = True,
    series: Any = None,
    chat: bool = True,
    invitations: bool = True,
) -> Match:
    """A new match. Named seats (``SeatSpec(kind="user")``) are invitations: each invitee
    accepts with ``match_join`` or declines; the match starts once everyone accepted. With
    ``invitations`` (the default) they pass ``invitations_allow`` (refusals, the hourly
    budget); a caller that seats players who already agreed (a seek, an accepted challenge,
    a tournament's round) passes False and joins them itself."""
    if any(spec.kind == "me" for spec in seats):
        play_allowed_check(creator)
    engine = get_engine(game)
    if engine is None:
        raise ValidationFailed({"game": [MSG_UNKNOWN_GAME]})
    time_control = time_control_validate(time_control, game=game)
    if not engine.min_players <= len(seats) <= engine.max_players:
        raise ValidationFailed(
            {"seats": [seat_range(engine.name, engine.min_players, engine.max_players, seats=True)]}
        )
    if sum(spec.kind == "me" for spec in seats) > 1:
        raise AlreadySeated(gettext_noop("'me' may appear only once."))
    try:
        filled = engine.validate_options(options or {}, len(seats))
    except InvalidOptions as exc:
        raise ValidationFailed(exc.errors) from exc

    seed, seed_sha256 = seed_new()
    match = Match(
        id=uuid.uuid4(),
        game=game,
        options=filled,
        protocol=protocol,
        disclose_submitted=disclose_submitted,
        chat=chat,
        time_control=time_control,
        created_by=creator,
        seed=seed,
        seed_sha256=seed_sha256,
        rated=rated,
        series=series,
        series_index=0 if series is not None else None,
    )
    rows = _seat_rows(match=match, creator=creator, specs=seats, ready=ready)
    # People and bot accounts are rated apart (rating_rules.one_pool): such a match says
    # so from the start instead of finishing with ``ratings: null``.
    if len({bool(seat.user.is_bot) for seat in rows if seat.user is not None}) > 1:
        match.rated = False
    with match_new(match, rows) as tx:
        if invitations:
            invited = [seat.user_id for seat in rows if seat.invited and seat.user_id is not None]
            invitations_allow(sender=creator, recipients=invited)
        tx.emit(events.MATCH_CREATED({"game": game, "seats": seats_public(rows)}))
        start_if_ready(tx)
    return match


def start_if_ready(tx: MatchChange) -> None:
    """Start once every seat is filled and every human seat has accepted: the deal is drawn."""
    if not all((seat.user_id is not None or seat.bot) and seat.accepted for seat in tx.seats):
        return
    match = tx.match
    deal = deal_rng(match, tx.seats)
    match_start(tx, tx.engine.initial_state(len(tx.seats), match.options, deal))


def match_join(
    *,
    match_id: uuid.UUID | str,
    user: User,
    seat: int | None = None,
    client_seed: str | None = None,
    now: datetime | None = None,
) -> Match:
    """Take an open seat, accept an invitation, or (creator) become ready; add entropy.
    ``now``: the change's time (a match starting here starts its clocks then)."""
    play_allowed_check(user, now=now)
    with match_change(match_id, now=now) as tx:
        match, seats = tx.match, tx.seats
        if match.status != Match.Status.OPEN:
            raise MatchNotActive(gettext_noop("Seats can be taken only before the match starts."))
        own = tx.seat_of(user.pk)
        if own is not None:
            if own.accepted or (seat is not None and seat != own.index):
                raise AlreadySeated(gettext_noop("You already hold a seat in this match."))
            target = own
        else:
            target = _open_seat(seats, seat)
            target.user = user
            if match.rated and _mixes_pools(tx, user):
                match.rated = False  # as at creation: said before the start
        target.accepted = True
        target.client_seed = client_seed or ""
        tx.emit(events.SEAT_JOINED({"seat": target.index, "player": user.username}))
        start_if_ready(tx)
    return match


def _mixes_pools(tx: MatchChange, user: User) -> bool:
    """Whether ``user`` joining would seat a bot account with people (or a person with bot
    accounts): such a match is unrated (rating_rules.one_pool)."""
    others = [s.user_id for s in tx.seats if s.user_id is not None and s.user_id != user.pk]
    if not others:
        return False
    kinds = set(User.objects.filter(pk__in=others).values_list("is_bot", flat=True))
    return bool(kinds - {bool(user.is_bot)})


def _open_seat(seats: list[Seat], index: int | None) -> Seat:
    if index is None:
        found = next((s for s in seats if s.is_open), None)
        if found is None:
            raise SeatTaken(MSG_NO_OPEN_SEAT)
        return found
    if not 0 <= index < len(seats):
        raise ValidationFailed({"seat": [seat_between(len(seats) - 1)]})
    if not seats[index].is_open:
        raise SeatTaken(Text(gettext_noop("Seat %(seat)s is not open."), seat=index))
    return seats[index]


def match_decline(*, match_id: uuid.UUID | str, user: User, reason: str | None = None) -> Match:
    """An invitee refuses the invitation, with a reason if they give one (the challenges'
    list): the match is aborted."""
    with match_change(match_id) as tx:
        match = tx.match
        own = tx.seat_of(user.pk)
        if own is None:
            raise NotSeated()
        if match.status != Match.Status.OPEN:
            raise MatchNotActive(
                gettext_noop("Invitations can be declined only before the match starts.")
            )
        if not own.invited or own.accepted:
            raise PermissionDenied(
                gettext_noop("Only an invitee who has not accepted can decline.")
            )
        match_abort_in(tx, reason="declined", seat=own.index, decline_reason=reason)
    return match


def match_resign(*, match_id: uuid.UUID | str, user: User) -> Match:
    """Before the start: leave the seat (the creator leaving aborts). After: forfeit, final."""
    with match_change(match_id) as tx:
        match = tx.match
        own = tx.seat_of(user.pk)
        if own is None:
            raise NotSeated()
        if match.status == Match.Status.OPEN:
            _leave(tx, own, user)
        elif match.status == Match.Status.ACTIVE:
            if own.forfeited:
                raise MatchNotActive(gettext_noop("Your seat has already forfeited."))
            seat_forfeit(tx, own, reason="resigned")
            match_play_on(tx)
        else:
            raise MatchNotActive(gettext_noop("The match is over."))
    return match


def match_creator_leave(*, match_id: uuid.UUID | str, user: User) -> Match:
    """The creator withdraws a match that has not started, seated in it or not (a bulk
    pairing's organiser holds no seat): it is aborted, ``creator_left``."""
    with match_change(match_id) as tx:
        if tx.match.created_by_id != user.pk:
            raise PermissionDenied(gettext_noop("Only the match's creator may do this."))
        if tx.match.status != Match.Status.OPEN:
            raise MatchNotActive(gettext_noop("Only a match not yet started can be withdrawn."))
        own = tx.seat_of(user.pk)
        match_abort_in(tx, reason="creator_left", seat=own.index if own is not None else None)
    return tx.match


def _leave(tx: MatchChange, own: Seat, user: User) -> None:
    if user.pk == tx.match.created_by_id:
        match_abort_in(tx, reason="creator_left", seat=own.index)
        return
    own.user = None
    own.accepted = own.invited = False
    own.client_seed = ""
    tx.emit(events.SEAT_LEFT({"seat": own.index}))
