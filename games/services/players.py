"""What the games do when an account closes or exports its data (``accounts.services`` hooks,
registered in ``games.apps`` through ``accounts.hooks``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from django.db.models import Q

from accounts.models import User
from core.errors import (
    MatchNotActive,
    NotSeated,
    PermissionDenied,
    ProposalClosed,
    SeatOfferClosed,
)
from games.models import (
    DeclineReason,
    Match,
    MatchArchive,
    MatchEvent,
    Move,
    Proposal,
    Seat,
    SeatOffer,
    SeatTenure,
)
from games.services.archive import archived_event_data_rewrite, archived_moves
from games.services.matches import match_creator_leave, match_decline, match_resign
from games.services.proposals import proposal_answer
from games.services.substitutes import offer_answer
from games.services.unit_of_work import match_change

_LIVE = (Match.Status.OPEN, Match.Status.ACTIVE)
_OVER = (Match.Status.FINISHED, Match.Status.ABORTED)


def proposals_withdraw(user: User) -> None:
    """Its open proposals (pause, abort) are withdrawn: the other players stop waiting."""
    seats = Seat.objects.filter(user=user, match__status=Match.Status.ACTIVE, forfeited=False)
    mine = {seat.match_id: seat.index for seat in seats}
    open_ = Proposal.objects.filter(match_id__in=mine, status=Proposal.Status.OPEN)
    for proposal in open_.order_by("match_id"):
        if proposal.proposer != mine[proposal.match_id]:
            continue
        with contextlib.suppress(ProposalClosed, MatchNotActive):  # answered, expired or over
            proposal_answer(
                match_id=proposal.match_id, proposal_id=proposal.pk, user=user, answer="withdraw"
            )


def seat_offers_withdraw(user: User) -> None:
    """The seats it offered to substitutes are offered no longer (the invitee hears of it).
    As an operator's withdrawal: the account may have forfeited its own seat since."""
    offers = SeatOffer.objects.filter(
        offered_by=user, status=SeatOffer.Status.OPEN, match__status=Match.Status.ACTIVE
    )
    for match_id, offer_id in offers.values_list("match_id", "pk").order_by("match_id", "pk"):
        with contextlib.suppress(SeatOfferClosed, MatchNotActive):
            offer_answer(
                match_id=match_id, offer_id=offer_id, user=user, answer="withdraw", operator=True
            )


def seat_offers_decline(user: User) -> None:
    """Seats offered to it are declined, so whoever offered them may offer them again."""
    offers = SeatOffer.objects.filter(
        invitee=user, status=SeatOffer.Status.OPEN, match__status=Match.Status.ACTIVE
    )
    for match_id, offer_id in offers.values_list("match_id", "pk").order_by("match_id", "pk"):
        with contextlib.suppress(SeatOfferClosed, MatchNotActive):
            offer_answer(match_id=match_id, offer_id=offer_id, user=user, answer="decline")


def invitations_decline(user: User) -> None:
    """Invitations to matches not yet started (challenges' bulk pairings, rematches, a
    creator's invitation) are declined: the match is aborted and its players hear of it."""
    seats = Seat.objects.filter(
        user=user, invited=True, accepted=False, match__status=Match.Status.OPEN
    )
    for match_id in seats.values_list("match_id", flat=True).order_by("match_id"):
        with contextlib.suppress(MatchNotActive, NotSeated, PermissionDenied):
            match_decline(match_id=match_id, user=user, reason=DeclineReason.GENERIC.value)


def matches_waiting_abort(user: User) -> None:
    """Matches it created that still wait for players (a bulk pairing's, where it holds no
    seat, or its own) are aborted as their creator left."""
    waiting = Match.objects.filter(created_by=user, status=Match.Status.OPEN)
    for match_id in waiting.values_list("pk", flat=True).order_by("pk"):
        with contextlib.suppress(MatchNotActive):
            match_creator_leave(match_id=match_id, user=user)


def seats_leave(user: User) -> None:
    """Leave every open match and forfeit every active one, through the resign service (each
    match in its own change). Finished matches keep the seat; the account's new name shows.
    A seat already handed to a stand-in bot (a tournament's, when the account withdrew from
    it) plays on to the end, as for any player who withdraws."""
    seats = Seat.objects.filter(user=user, match__status__in=_LIVE, forfeited=False).exclude(
        match__status=Match.Status.ACTIVE, controlled_by=Seat.Controller.BOT
    )
    for match_id in seats.values_list("match_id", flat=True).order_by("match_id"):
        # It may have ended (or the seat forfeited) in the meantime.
        with contextlib.suppress(MatchNotActive):
            match_resign(match_id=match_id, user=user)


#: What a closing account leaves open in the games, closed in this order (each kind one
#: function, each match in its own change): what others wait on first, its own seats last.
CLOSERS: tuple[Callable[[User], None], ...] = (
    proposals_withdraw,
    seat_offers_withdraw,
    seat_offers_decline,
    invitations_decline,
    matches_waiting_abort,
    seats_leave,
)


def player_withdraw(user: User) -> None:
    """The games' part in closing an account (``accounts.hooks``): every closer in turn."""
    for close in CLOSERS:
        close(user)


#: The keys of event data that hold a user's name (players, operators, a seat's invitee).
NAME_KEYS = frozenset({"player", "operator", "invitee"})
#: Events an operator's name appears in, in matches the operator may not be seated in.
OPERATOR_EVENTS = (
    "match_aborted",
    "deadline_extended",
    "deadline_forced",
    "seat_replaced",
    "seat_returned",
)


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {
            key: new if key in NAME_KEYS and item == old else _renamed(item, old, new)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return value


def player_renamed(user: User, old_name: str) -> None:
    """A closed account's old name leaves the history of every match it took part in: event
    data that named it (seats at creation and start, joins, an operator's actions) names its
    placeholder instead, each match in its own change."""
    # Its seats, the seats it left to a substitute, the seats offered to it.
    seated = [
        *Seat.objects.filter(user=user).values_list("match_id", flat=True),
        *SeatTenure.objects.filter(user=user).values_list("match_id", flat=True),
        *SeatOffer.objects.filter(invitee=user).values_list("match_id", flat=True),
    ]
    candidates = MatchEvent.objects.filter(
        Q(match_id__in=seated) | Q(type__in=OPERATOR_EVENTS), data__isnull=False
    ).values_list("match_id", "data")
    named = {match_id for match_id, data in candidates if _renamed(data, old_name, "") != data}
    for match_id in sorted(named, key=str):
        with match_change(match_id) as tx:
            for event in MatchEvent.objects.filter(match_id=match_id, data__isnull=False):
                data = _renamed(event.data, old_name, user.username)
                if data != event.data:
                    tx.rewrite_event_data(event, data)
    # Archived matches keep their events in their archive (games/services/archive.py).
    for match_id in MatchArchive.objects.filter(match_id__in=seated).values_list(
        "match_id", flat=True
    ):
        archived_event_data_rewrite(
            match_id=match_id,
            rewrite=lambda data: _renamed(data, old_name, user.username),
        )


def player_has_played(user: User) -> bool:
    """Whether ``user`` ever held a seat (an invitation not accepted counts: it was offered
    to them as the account they were)."""
    left = SeatTenure.objects.filter(user=user)  # a seat it left to a substitute
    return Seat.objects.filter(user=user).exists() or left.exists()


def player_export(user: User) -> dict[str, Any]:
    """The account's matches and its own seat's moves. A move's content is exported only once
    its match is over (when the audit transcript publishes it anyway): before that, a move the
    rules keep even from its owner must not come back, and the rest is in the match read."""
    seats = list(
        Seat.objects.filter(user=user).select_related("match").order_by("match__created_at")
    )
    # Seats that changed hands: its own steps of them only. One it left is no longer its seat.
    tenures = {(t.match_id, t.seat): t for t in SeatTenure.objects.filter(user=user)}
    left = {key: t for key, t in tenures.items() if t.to_step is not None}
    held = {(seat.match_id, seat.index) for seat in seats}
    for match_id, index in sorted(set(left) - held, key=str):
        seats.append(Seat.objects.select_related("match").get(match_id=match_id, index=index))
    own = Q(pk__in=[])
    for seat in seats:
        own |= Q(match_id=seat.match_id, seat=seat.index)
    moves: dict[Any, list[Move]] = {}
    for move in Move.objects.filter(own).order_by("match_id", "step"):
        moves.setdefault(move.match_id, []).append(move)
    for seat in seats:
        if seat.match.status in _OVER and seat.match_id not in moves:  # perhaps archived
            archived = archived_moves(seat.match) or []
            moves[seat.match_id] = [m for m in archived if m.seat == seat.index]
    for (match_id, _), tenure in tenures.items():  # its own steps of a seat that changed hands
        last = tenure.to_step if tenure.to_step is not None else float("inf")
        moves[match_id] = [m for m in moves.get(match_id, []) if tenure.from_step <= m.step <= last]
    matches = []
    for seat in seats:
        match = seat.match
        over = match.status in _OVER
        matches.append(
            {
                "id": str(match.id),
                "game": match.game,
                "status": match.status,
                "seat": seat.index,
                # A seat it left to a substitute it had forfeited, whatever the seat is now.
                "forfeited": seat.forfeited or (seat.match_id, seat.index) not in held,
                "created_at": match.created_at.isoformat(),
                "finished_at": match.finished_at.isoformat() if match.finished_at else None,
                "result": match.result if over else None,
                "moves": [
                    {
                        "step": move.step,
                        "made_by": move.source,
                        "submitted_at": move.submitted_at.isoformat(),
                        "move": move.payload if over else None,
                        "receipt": move.receipt,
                    }
                    for move in moves.get(match.id, [])
                ],
            }
        )
    return {"matches": matches}
