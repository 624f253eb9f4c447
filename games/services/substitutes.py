"""Substitutes: a seat its player left is offered to someone else, who plays it on to the end.

Which seats: a seat of an active correspondence match (a day or more per step or bank) whose
player forfeited it — resigned, timed out under the ``forfeit`` policy, or revealed an illegal
move. Under ``auto_move`` a timed-out seat stays its player's (they may come back), so it is
not offered.

Who offers: a seated player who has not forfeited, the match's creator, or an operator (the
console). By invitation (one user; notified on every channel) or as an open seat in the lobby.
The invitee may decline; whoever may offer may withdraw; an offer open when the match ends
reads as ``closed``.

Taking over runs under the match lock (``match_change``), so two takers, or a taker and the
deadline sweep, resolve one way. The step under way is the stand-in's: if the seat still owes
a move in it, the stand-in makes that move now (the move it would have made when the step
resolves); the substitute plays from the next step. The seat keeps its hand (the engine's
state is the seat's, not the player's) and gets a fresh clock at the time control's start: the
player who left may have spent or run out the bank, which would time the substitute out at
once. Nobody plays two seats of one match: whoever holds or held a seat of it is refused
(``played_in_match``), so nobody learns two hands.

``SeatTenure`` rows record who held the seat from which step; a seat that never changed hands
has none. Ratings: a substituted seat counts for nobody (games/services/ratings.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal, cast

from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import (
    MatchNotActive,
    NotFound,
    PermissionDenied,
    PlayedHere,
    SeatNotOfferable,
    SeatOfferClosed,
    SeatOfferOpen,
    ValidationFailed,
    WrongPhase,
)
from core.text import seat_between
from games import events
from games.models import Match, Move, Seat, SeatOffer, SeatTenure
from games.services import bodies
from games.services.bot_decisions import bot_decide, stand_in_name
from games.services.clock_changes import deadline_refresh
from games.services.conditional import conditional_moves_drop
from games.services.consent import invitations_allow
from games.services.steps import move_new
from games.services.unit_of_work import MatchChange, match_change
from games.time_controls import clock_new, iso, time_control_of

Answer = Literal["accept", "decline", "withdraw"]
#: How many closed offers a read lists besides the open ones.
RECENT = 20


def offer_make(
    *,
    match_id: uuid.UUID | str,
    user: User,
    seat: int,
    invitee: str | None = None,
    operator: bool = False,
    now: datetime | None = None,
) -> SeatOffer:
    """Offer ``seat`` to ``invitee`` (a username) or, without one, to anyone (module
    docstring). ``operator``: an operator of the console offers it."""
    with match_change(match_id, now=now) as tx:
        _may_offer(tx, user, operator=operator)
        target = _offerable(tx, seat)
        invited: User | None = None
        if invitee is not None:
            invited = User.objects.filter(username__iexact=invitee, is_active=True).first()
            if invited is None:
                raise ValidationFailed({"invitee": [gettext_noop("Unknown user.")]})
            _never_played(tx, invited)
            if not operator:  # the console's offer is an operator's, with its reason
                invitations_allow(sender=user, recipients=[invited.pk], now=tx.now)
        if SeatOffer.objects.filter(
            match_id=tx.match.pk, seat=target.index, status=SeatOffer.Status.OPEN
        ).exists():
            raise SeatOfferOpen()
        offer = SeatOffer.objects.create(
            match_id=tx.match.pk,
            seat=target.index,
            offered_by=user,
            invitee=invited,
            created_at=tx.now,
        )
        tx.emit(
            events.SEAT_OFFERED(
                {
                    "offer": offer.pk,
                    "seat": target.index,
                    "invitee": invited.username if invited else None,
                }
            ),
            step=tx.match.step,
        )
    return offer


def offer_answer(
    *,
    match_id: uuid.UUID | str,
    offer_id: int,
    user: User,
    answer: Answer,
    operator: bool = False,
    now: datetime | None = None,
) -> SeatOffer:
    """Take the offered seat over (``accept``), decline an invitation, or withdraw the offer."""
    with match_change(match_id, now=now) as tx:
        offer = SeatOffer.objects.filter(pk=offer_id, match_id=tx.match.pk).first()
        if offer is None:
            raise NotFound(gettext_noop("No seat offer with this id in this match."))
        if offer.status != SeatOffer.Status.OPEN or tx.match.status != Match.Status.ACTIVE:
            raise SeatOfferClosed()
        if answer == "withdraw":
            _may_offer(tx, user, operator=operator)
            _close(tx, offer, "withdrawn")
        elif answer == "decline":
            if offer.invitee_id != user.pk:
                raise PermissionDenied(gettext_noop("Only the invited user may decline."))
            _close(tx, offer, "declined")
        else:
            if offer.invitee_id is not None and offer.invitee_id != user.pk:
                raise PermissionDenied(gettext_noop("This seat is offered to someone else."))
            _never_played(tx, user)
            take_over(tx, offer, user)
    return offer


def _may_offer(tx: MatchChange, user: User, *, operator: bool) -> None:
    if tx.match.status != Match.Status.ACTIVE:
        raise MatchNotActive(gettext_noop("Only a seat of an active match may be offered."))
    if operator or user.pk == tx.match.created_by_id:
        return
    own = tx.seat_of(user.pk)
    if own is None or own.forfeited:
        raise PermissionDenied(
            gettext_noop("Only a player still seated or the match's creator may offer a seat.")
        )


def _offerable(tx: MatchChange, index: int) -> Seat:
    if not 0 <= index < len(tx.seats):
        raise ValidationFailed({"seat": [seat_between(len(tx.seats) - 1)]})
    tc = time_control_of(tx.match)
    seat = tx.seats[index]
    if tc is None or not tc.correspondence or not seat.forfeited or seat.user_id is None:
        raise SeatNotOfferable()
    return seat


def _never_played(tx: MatchChange, user: User) -> None:
    """Refuse whoever holds or held a seat of this match."""
    held = tx.seat_of(user.pk) is not None
    if held or SeatTenure.objects.filter(match_id=tx.match.pk, user_id=user.pk).exists():
        raise PlayedHere()


def _close(tx: MatchChange, offer: SeatOffer, status: Literal["declined", "withdrawn"]) -> None:
    # written with the change, under the match's lock
    tx.update_row(offer, status=status, answered_at=tx.now)
    tx.emit(
        events.SEAT_OFFER_CLOSED({"offer": offer.pk, "seat": offer.seat, "status": status}),
        step=tx.match.step,
    )


def take_over(tx: MatchChange, offer: SeatOffer, user: User) -> None:
    """``user`` takes the offered seat over from the next step (module docstring)."""
    match = tx.match
    seat = tx.seats[offer.seat]
    if not seat.forfeited or seat.user_id is None:  # offers are only made for such seats
        raise SeatNotOfferable()
    _stand_in_finishes_step(tx, seat)
    from_step = match.step + 1
    previous = SeatTenure.objects.filter(
        match_id=match.pk, seat=seat.index, to_step__isnull=True
    ).first()
    if previous is None:
        SeatTenure.objects.create(
            match_id=match.pk,
            seat=seat.index,
            user_id=seat.user_id,
            from_step=1,
            to_step=match.step,
        )
    else:
        tx.update_row(previous, to_step=match.step)
    SeatTenure.objects.create(
        match_id=match.pk, seat=seat.index, user_id=user.pk, from_step=from_step
    )
    # Rules its former holder set must never play for the substitute.
    conditional_moves_drop(tx, seat.index)
    seat.user = user
    # What the lock read of the leaver's destinations is not the substitute's: unknown, so a
    # notification of this change goes out to every channel (notify/generate.py).
    seat.user_offsite = None  # type: ignore[attr-defined]
    seat.forfeited = False
    seat.controlled_by = Seat.Controller.PLAYER
    seat.bot_memory = {}
    # The previous player's vacation is theirs, not the seat's.
    seat.held_until = None
    _clock_fresh(tx, seat, user)
    tx.update_row(offer, status=SeatOffer.Status.TAKEN, answered_at=tx.now, taken_by_id=user.pk)
    tx.emit(
        events.SEAT_TAKEN_OVER(
            {
                "offer": offer.pk,
                "seat": seat.index,
                "player": user.username,
                "from_step": from_step,
            }
        ),
        step=match.step,
    )


def _stand_in_finishes_step(tx: MatchChange, seat: Seat) -> None:
    """The seat's move of the step under way, if it still owes one, by the stand-in: the move
    it would make when the step resolves, made now so that the substitute's first step is the
    next one."""
    match = tx.match
    if not match.acting_mask >> seat.index & 1:
        return
    if match.phase_kind == Match.PhaseKind.REVEAL:
        raise WrongPhase(
            gettext_noop("The step is being revealed: take the seat over once it resolves.")
        )
    if not match.submitted_mask >> seat.index & 1:
        move_new(tx, seat.index, bot_decide(tx, seat, name=stand_in_name(tx)), Move.Source.FORFEIT)
        match.submitted_mask |= 1 << seat.index
        return
    if match.protocol == Match.Protocol.COMMIT_REVEAL:
        # It committed, then forfeited: nobody could reveal its move, so the stand-in fills it.
        row = Move.objects.filter(match_id=match.pk, step=match.step, seat=seat.index).first()
        if row is not None and row.payload is None:
            move = bot_decide(tx, seat, name=stand_in_name(tx))
            tx.update_move(row, payload=move, source=Move.Source.FORFEIT)


def _clock_fresh(tx: MatchChange, seat: Seat, user: User) -> None:
    tc = time_control_of(tx.match)
    if tc is None or tx.match.clocks is None:
        return
    clocks = list(tx.match.clocks)
    clocks[seat.index] = clock_new(tc, tz=user.time_zone or "UTC" if tc.weekend_pause else None)
    tx.match.clocks = clocks
    deadline_refresh(tx)


# --- reads -------------------------------------------------------------------------------------


def status_of(offer: SeatOffer, match_active: bool) -> str:
    """An open offer of a match that is no longer active reads as closed."""
    if offer.status == SeatOffer.Status.OPEN and not match_active:
        return SeatOffer.Status.CLOSED
    return offer.status


def offer_public(offer: SeatOffer, *, game: str, match_active: bool) -> bodies.SeatOffer:
    """What anyone who may read the match sees of an offer (offers are public)."""
    return {
        "id": offer.pk,
        "match": str(offer.match_id),
        "game": game,
        "seat": offer.seat,
        "offered_by": offer.offered_by.username,
        "invitee": offer.invitee.username if offer.invitee else None,
        "status": cast(Any, status_of(offer, match_active)),
        "created_at": iso(offer.created_at),
        "answered_at": iso(offer.answered_at) if offer.answered_at else None,
        "taken_by": offer.taken_by.username if offer.taken_by else None,
    }


def tenures_of(match: Match | Any) -> list[bodies.Tenure]:
    """Who played which steps of the seats that changed hands (the others: their player)."""
    rows = SeatTenure.objects.filter(match_id=match.pk).select_related("user")
    return [
        {
            "seat": row.seat,
            "player": row.user.username,
            "from_step": row.from_step,
            "to_step": row.to_step,
        }
        for row in rows.order_by("seat", "from_step")
    ]


def substitutes_read(match: Match) -> bodies.SubstitutePage:
    """A match's seat offers (the open ones and the latest closed ones, newest first) and who
    played which steps of its seats that changed hands."""
    rows = (
        SeatOffer.objects.filter(match_id=match.pk)
        .select_related("offered_by", "invitee", "taken_by")
        .order_by("-created_at", "-pk")
    )
    active = match.status == Match.Status.ACTIVE
    # One open offer per seat at most, so the open ones are few; then the latest closed ones.
    opened = list(rows.filter(status=SeatOffer.Status.OPEN))
    closed = list(rows.exclude(status=SeatOffer.Status.OPEN)[:RECENT])
    offers = sorted([*opened, *closed], key=lambda row: (row.created_at, row.pk), reverse=True)
    return {
        "offers": [offer_public(row, game=match.game, match_active=active) for row in offers],
        "tenures": tenures_of(match),
    }


def open_seats(user: User | None, *, limit: int = 50) -> list[bodies.SeatOffer]:
    """The lobby's seats to take over: open to anyone, or offered to ``user``; newest first,
    of active matches only."""
    rows = SeatOffer.objects.filter(status=SeatOffer.Status.OPEN, match__status="active")
    mine = rows.filter(invitee_id=user.pk) if user is not None else rows.none()
    chosen = (rows.filter(invitee__isnull=True) | mine).select_related(
        "offered_by", "invitee", "taken_by", "match"
    )
    return [
        offer_public(row, game=row.match.game, match_active=True)
        for row in chosen.order_by("-created_at")[:limit]
    ]
