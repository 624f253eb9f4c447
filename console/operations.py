"""What an operator may do to a match, and when: each operation names its group, its form, the
service it calls, and the states of the match that allow it. A finished or aborted match
allows none (its page offers the transcript's download and its verification instead)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from console import forms
from games.models import Match, Seat, SeatOffer
from games.services import operators, substitutes

Call = Callable[[User, Match, dict[str, Any]], Any]


def _abort(user: User, match: Match, data: dict[str, Any]) -> Any:
    return operators.match_abort(match_id=match.pk, operator=user, reason=data["reason"])


def _extend(user: User, match: Match, data: dict[str, Any]) -> Any:
    return operators.deadline_extend(
        match_id=match.pk,
        operator=user,
        reason=data["reason"],
        seconds=data["seconds"],
        step=data.get("step"),
    )


def _force(user: User, match: Match, data: dict[str, Any]) -> Any:
    return operators.step_force_timeout(
        match_id=match.pk, operator=user, reason=data["reason"], step=data.get("step")
    )


def _replace(user: User, match: Match, data: dict[str, Any]) -> Any:
    return operators.seat_replace_with_bot(
        match_id=match.pk, seat=data["seat"], operator=user, reason=data["reason"], bot=data["bot"]
    )


def _return(user: User, match: Match, data: dict[str, Any]) -> Any:
    return operators.seat_return(
        match_id=match.pk, seat=data["seat"], operator=user, reason=data["reason"]
    )


def _offer(user: User, match: Match, data: dict[str, Any]) -> Any:
    return substitutes.offer_make(
        match_id=match.pk,
        user=user,
        seat=data["seat"],
        invitee=data.get("invitee") or None,
        operator=True,
    )


def _withdraw(user: User, match: Match, data: dict[str, Any]) -> Any:
    return substitutes.offer_answer(
        match_id=match.pk, offer_id=data["offer"], user=user, answer="withdraw", operator=True
    )


def _active(match: Match) -> bool:
    return match.status == Match.Status.ACTIVE


def _timed(match: Match) -> bool:
    return _active(match) and bool(match.time_control)


def _seats(match: Match, *, bot: bool | None = None, forfeited: bool = False) -> bool:
    for seat in match.seats.all():
        if seat.user_id is None or seat.forfeited != forfeited:
            continue
        if bot is None or (seat.controlled_by == Seat.Controller.BOT) == bot:
            return True
    return False


def _open_offers(match: Match) -> bool:
    return SeatOffer.objects.filter(match_id=match.pk, status=SeatOffer.Status.OPEN).exists()


@dataclass(frozen=True)
class Operation:
    title: Any
    group: Any
    form: type[forms.ReasonForm]
    call: Call
    allowed: Callable[[Match], bool]


CLOCK, SEATS, MATCH = _("Clock"), _("Seats"), _("Match")

#: name → operation: the buttons of the match page, by group.
OPERATIONS: dict[str, Operation] = {
    "extend": Operation(_("Extend the current deadline"), CLOCK, forms.ExtendForm, _extend, _timed),
    "force-timeout": Operation(
        _("Force the timeout now"), CLOCK, forms.StepReasonForm, _force, _timed
    ),
    "replace-seat": Operation(
        _("Hand a seat to a bot"),
        SEATS,
        forms.ReplaceSeatForm,
        _replace,
        lambda m: _active(m) and _seats(m, bot=False),
    ),
    "return-seat": Operation(
        _("Give a seat back to its player"),
        SEATS,
        forms.ReturnSeatForm,
        _return,
        lambda m: _active(m) and _seats(m, bot=True),
    ),
    "offer-seat": Operation(
        _("Offer a left seat to a substitute"),
        SEATS,
        forms.OfferSeatForm,
        _offer,
        lambda m: _active(m) and _seats(m, forfeited=True),
    ),
    "withdraw-offer": Operation(
        _("Withdraw a seat offer"), SEATS, forms.WithdrawOfferForm, _withdraw, _open_offers
    ),
    "abort": Operation(
        _("Abort the match"),
        MATCH,
        forms.ReasonForm,
        _abort,
        lambda m: m.status in (Match.Status.OPEN, Match.Status.ACTIVE),
    ),
}


def operations_allowed(match: Match) -> list[tuple[str, Operation]]:
    return [(name, op) for name, op in OPERATIONS.items() if op.allowed(match)]


def operator_of(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user
