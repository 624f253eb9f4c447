"""Rematches: the same match again, seats rotated by one, asked for by a seated player once
the match has finished. Also the next match of a series (``games.services.series``), built
the same way."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import play_allowed_check
from core.errors import MatchNotFinished, NotSeated
from games import events
from games.models import Match, Seat
from games.services.consent import invitations_allow
from games.services.fairness import seed_new
from games.services.matches import start_if_ready
from games.services.steps import seats_public
from games.services.unit_of_work import MatchChange, match_change, match_new


def rotated_seats(seats: list[Seat], match: Match, *, accepted: set[int] | None) -> list[Seat]:
    """New seat rows for ``match``: each participant of ``seats`` one seat further on (the
    last one's to seat 0), bots with their options. Humans are invited, except those in
    ``accepted`` (every human when ``accepted`` is None), who are seated accepted."""
    rows: list[Seat] = []
    count = len(seats)
    for index in range(count):
        old = seats[(index - 1) % count]
        if old.bot and old.user_id is None:
            rows.append(
                Seat(
                    match=match,
                    index=index,
                    bot=old.bot,
                    bot_options=old.bot_options,
                    accepted=True,
                    controlled_by=Seat.Controller.BOT,
                )
            )
            continue
        agreed = accepted is None or old.user_id in accepted
        rows.append(
            Seat(
                match=match,
                index=index,
                user_id=old.user_id,
                accepted=agreed,
                invited=not agreed,
            )
        )
    return rows


def match_following(
    previous: Match,
    seats: list[Seat],
    *,
    creator_id: int,
    accepted: set[int] | None,
    **fields: object,
) -> Match:
    """Create the match that follows ``previous`` (a rematch or a series' next match): same
    game, options, protocol, disclosure, time control, rating and chat; seats rotated. It starts at
    once when every human is ``accepted``."""
    seed, seed_sha256 = seed_new()
    match = Match(
        id=uuid.uuid4(),
        game=previous.game,
        options=previous.options,
        protocol=previous.protocol,
        disclose_submitted=previous.disclose_submitted,
        time_control=previous.time_control,
        rated=previous.rated,
        chat=previous.chat,
        created_by_id=creator_id,
        seed=seed,
        seed_sha256=seed_sha256,
        **fields,
    )
    rows = rotated_seats(seats, match, accepted=accepted)
    with match_new(match, rows) as tx:
        tx.emit(events.MATCH_CREATED({"game": match.game, "seats": seats_public(rows)}))
        start_if_ready(tx)
    return match


@dataclass(frozen=True)
class Rematch:
    match: Match
    created: bool


def match_rematch(*, match_id: uuid.UUID | str, user: User) -> Rematch:
    """The finished match's rematch: created by a seated player's first request (the
    requester accepted, the other humans invited), the same one for every later request by
    anyone. The finished match stays locked while it is created, so two requests at once
    create one rematch."""
    play_allowed_check(user)
    with match_change(match_id) as tx:
        existing = tx.match.rematch_id
        if existing is not None:
            return Rematch(Match.objects.defer("state").get(pk=existing), created=False)
        own = tx.seat_of(user.pk)
        if own is None:
            raise NotSeated()
        if tx.match.status != Match.Status.FINISHED:
            raise MatchNotFinished(
                gettext_noop("A rematch can be asked for once the match has finished.")
            )
        others = [s.user_id for s in tx.seats if s.user_id is not None and s.user_id != user.pk]
        invitations_allow(sender=user, recipients=others, now=tx.now)
        rematch = match_following(tx.match, tx.seats, creator_id=user.pk, accepted={user.pk})
        _link(tx, rematch, own.index)
    return Rematch(rematch, created=True)


def _link(tx: MatchChange, rematch: Match, seat: int) -> None:
    tx.match.rematch_id = rematch.id
    tx.emit(events.REMATCH_CREATED({"match": str(rematch.id), "seat": seat}))
