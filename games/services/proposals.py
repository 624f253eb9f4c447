"""Pause and abort by agreement: a seated player proposes, every other seated human accepts.

Who votes: the seats held by a human account that has not forfeited (house bots and bot
accounts do not). A proposal takes effect when the last of them accepts within
``FACEDOWN_PROPOSAL_SECONDS``; a decline ends it, its proposer may withdraw it. Every answer
runs under the match lock (``match_change``), so two answers, or an answer and the deadline
sweep, resolve one way.

A seat makes at most ``FACEDOWN_PROPOSALS_PER_HOUR`` proposals in a match in any hour,
withdrawn and declined ones counted (``proposals_exhausted``).

An open proposal past its ``expires_at`` is expired: reads show it so without writing; the
next change that meets it (an answer, a new proposal) records it.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from django.conf import settings
from django.db.models import F
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import (
    AlreadyAnswered,
    MatchNotActive,
    NoOneToAsk,
    NotFound,
    NotSeated,
    PauseNotAllowed,
    PermissionDenied,
    ProposalClosed,
    ProposalOpen,
    ProposalsExhausted,
    ValidationFailed,
)
from games import events
from games.models import Match, Proposal, Seat
from games.services import bodies
from games.services.clock_changes import pause_begin
from games.services.steps import match_abort_in
from games.services.unit_of_work import MatchChange, match_change
from games.time_controls import iso, time_control_of

#: The farthest a pause may end from the moment it is proposed.
PAUSE_LONGEST = timedelta(days=14)
#: How many closed proposals a read lists besides the open one.
RECENT = 10

Answer = Literal["accept", "decline", "withdraw"]


def voters(tx: MatchChange) -> list[Seat]:
    """The seats whose players vote: held by a human account, not forfeited."""
    held = {seat.user_id: seat for seat in tx.seats if seat.user_id is not None}
    held = {user: seat for user, seat in held.items() if not seat.forfeited}
    if not held:
        return []
    humans = set(User.objects.filter(pk__in=held, is_bot=False).values_list("pk", flat=True))
    return [seat for user, seat in held.items() if user in humans]


def status_at(proposal: Proposal, now: datetime, *, match_active: bool = True) -> str:
    """The proposal's status at ``now``: an open one past its time, or of a match that ended
    meanwhile, is expired."""
    if proposal.status == Proposal.Status.OPEN and (proposal.expires_at <= now or not match_active):
        return Proposal.Status.EXPIRED
    return proposal.status


def proposal_make(
    *,
    match_id: uuid.UUID | str,
    user: User,
    kind: str,
    until: datetime | None = None,
    now: datetime | None = None,
) -> Proposal:
    """Propose a pause until ``until`` or an abort (module docstring)."""
    if kind not in Proposal.Kind.values:
        raise ValidationFailed({"kind": [gettext_noop("pause or abort.")]})
    with match_change(match_id, now=now) as tx:
        own, voting = _voter(tx, user)
        if not [seat for seat in voting if seat.index != own.index]:
            raise NoOneToAsk()
        if kind == Proposal.Kind.PAUSE:
            until = _pause_end(tx, until)
        elif until is not None:
            raise ValidationFailed({"until": [gettext_noop("Only a pause has an end.")]})
        _close_stale(tx)
        if Proposal.objects.filter(match_id=tx.match.pk, status=Proposal.Status.OPEN).exists():
            raise ProposalOpen()
        _within_budget(tx, own)
        proposal = Proposal.objects.create(
            match_id=tx.match.pk,
            kind=kind,
            proposer=own.index,
            until=until,
            created_at=tx.now,
            expires_at=tx.now + timedelta(seconds=settings.FACEDOWN_PROPOSAL_SECONDS),
            accepted=[own.index],
        )
        proposal_on_row(tx, proposal)
        tx.emit(
            events.PROPOSAL_MADE(
                {
                    "proposal": proposal.pk,
                    "kind": cast(events.ProposalKind, proposal.kind),
                    "seat": own.index,
                    "until": iso(until) if until else None,
                    "expires_at": iso(proposal.expires_at),
                }
            )
        )
    return proposal


def _within_budget(tx: MatchChange, own: Seat) -> None:
    """Refuse a seat's proposal beyond ``FACEDOWN_PROPOSALS_PER_HOUR`` in this match in the
    last hour, whatever became of the earlier ones (a withdrawn one counts): each proposal
    notifies the other players. Under the match lock, so two at once cannot both pass."""
    since = tx.now - timedelta(hours=1)
    made = Proposal.objects.filter(
        match_id=tx.match.pk, proposer=own.index, created_at__gt=since
    ).count()
    if made >= int(settings.FACEDOWN_PROPOSALS_PER_HOUR):
        raise ProposalsExhausted()


def proposal_answer(
    *,
    match_id: uuid.UUID | str,
    proposal_id: int,
    user: User,
    answer: Answer,
    now: datetime | None = None,
) -> Proposal:
    """Accept, decline or (the proposer) withdraw the open proposal; the last acceptance
    makes it take effect."""
    with match_change(match_id, now=now) as tx:
        proposal = Proposal.objects.filter(pk=proposal_id, match_id=tx.match.pk).first()
        if proposal is None:
            raise NotFound(gettext_noop("No proposal with this id in this match."))
        own, voting = _voter(tx, user)
        if status_at(proposal, tx.now) == Proposal.Status.EXPIRED:
            # Refused, so nothing is written: reads show it expired, the next proposal records it.
            raise ProposalClosed(gettext_noop("The proposal expired unanswered."))
        if proposal.status != Proposal.Status.OPEN:
            raise ProposalClosed()
        if any(s.forfeited for s in tx.seats if s.index == proposal.proposer):
            raise ProposalClosed(gettext_noop("Its proposer has forfeited since."))
        if answer == "withdraw":
            if own.index != proposal.proposer:
                raise PermissionDenied(gettext_noop("Only its proposer may withdraw a proposal."))
            _close(tx, proposal, own, "withdrawn")
        elif own.index in proposal.accepted:
            if answer == "decline" or any(s.index not in proposal.accepted for s in voting):
                raise AlreadyAnswered()
            # Whoever was still to answer forfeited since: an accept again makes it take effect.
            _accept(tx, proposal, own, voting)
        elif answer == "decline":
            _close(tx, proposal, own, "declined")
        else:
            _accept(tx, proposal, own, voting)
    return proposal


def _voter(tx: MatchChange, user: User) -> tuple[Seat, list[Seat]]:
    """The user's seat, if it votes, and every voting seat."""
    own = tx.seat_of(user.pk)
    if own is None:
        raise NotSeated()
    if tx.match.status != Match.Status.ACTIVE:
        raise MatchNotActive(gettext_noop("Only an active match may pause or abort by agreement."))
    if own.forfeited:
        raise MatchNotActive(gettext_noop("Your seat has forfeited."))
    voting = voters(tx)
    if own not in voting:
        raise PermissionDenied(gettext_noop("Bot accounts do not vote on proposals."))
    return own, voting


def _pause_end(tx: MatchChange, until: datetime | None) -> datetime:
    tc = time_control_of(tx.match)
    if tc is None or not tc.correspondence or not tc.allow_pause:
        raise PauseNotAllowed()
    if until is None:
        raise ValidationFailed({"until": [gettext_noop("A pause needs its end.")]})
    if until <= tx.now or until > tx.now + PAUSE_LONGEST:
        raise ValidationFailed({"until": [gettext_noop("After now and at most 14 days ahead.")]})
    return until


def _close_stale(tx: MatchChange) -> None:
    """Record the match's open proposal as expired if it ran out of time (no event: every
    reader knew its expiry from ``proposal_made``), or as withdrawn if its proposer forfeited
    since (one answer can no longer come)."""
    open_ = Proposal.objects.filter(match_id=tx.match.pk, status=Proposal.Status.OPEN)
    open_.filter(expires_at__lte=tx.now).update(status=Proposal.Status.EXPIRED, answered_at=tx.now)
    forfeited = [seat.index for seat in tx.seats if seat.forfeited]
    open_.filter(proposer__in=forfeited).update(
        status=Proposal.Status.WITHDRAWN, answered_at=tx.now, answered_by=F("proposer")
    )


Closing = Literal["declined", "withdrawn"]


def _close(tx: MatchChange, proposal: Proposal, own: Seat, status: Closing) -> None:
    # written with the change, under the match's lock
    tx.update_row(proposal, status=status, answered_at=tx.now, answered_by=own.index)
    proposal_on_row(tx, proposal)
    _answered(tx, proposal, own, status)


def _accept(tx: MatchChange, proposal: Proposal, own: Seat, voting: list[Seat]) -> None:
    accepted = sorted({*proposal.accepted, own.index})
    waiting = [seat for seat in voting if seat.index not in accepted]
    if waiting:
        tx.update_row(proposal, accepted=accepted)
        proposal_on_row(tx, proposal)
        _answered(tx, proposal, own, "accepted", status="open")
        return
    tx.update_row(proposal, accepted=accepted, status=Proposal.Status.ACCEPTED, answered_at=tx.now)
    proposal_on_row(tx, proposal)
    _answered(tx, proposal, own, "accepted")
    if proposal.kind == Proposal.Kind.PAUSE:
        until = proposal.until
        assert until is not None
        pause_begin(tx, until)
        tx.emit(events.MATCH_PAUSED({"proposal": proposal.pk, "until": iso(until)}))
    else:
        match_abort_in(tx, reason="agreed", seat=proposal.proposer)


def _answered(
    tx: MatchChange,
    proposal: Proposal,
    own: Seat,
    answer: Literal["accepted", "declined", "withdrawn"],
    *,
    status: Literal["open"] | None = None,
) -> None:
    data: events.ProposalAnswered = {
        "proposal": proposal.pk,
        "kind": cast(events.ProposalKind, proposal.kind),
        "proposer": proposal.proposer,
        "seat": own.index,
        "answer": answer,
        "status": status or answer,
    }
    tx.emit(events.PROPOSAL_ANSWERED(data))


def proposal_on_row(tx: MatchChange, proposal: Proposal) -> None:
    """Keep the match row's copy of its open proposal (what the match resource shows)."""
    if proposal.status != Proposal.Status.OPEN:
        tx.match.proposal = None
        return
    shown: bodies.OpenProposal = {
        "id": proposal.pk,
        "kind": cast(events.ProposalKind, proposal.kind),
        "proposer": proposal.proposer,
        "until": iso(proposal.until) if proposal.until else None,
        "expires_at": iso(proposal.expires_at),
        "accepted": list(proposal.accepted),
    }
    tx.match.proposal = shown


def proposal_public(
    proposal: Proposal, now: datetime, *, match_active: bool = True
) -> bodies.Proposal:
    """What anyone who may read the match sees of a proposal (proposals are public)."""
    return {
        "id": proposal.pk,
        "kind": cast(events.ProposalKind, proposal.kind),
        "proposer": proposal.proposer,
        "until": iso(proposal.until) if proposal.until else None,
        "created_at": iso(proposal.created_at),
        "expires_at": iso(proposal.expires_at),
        "accepted": list(proposal.accepted),
        "status": cast(Any, status_at(proposal, now, match_active=match_active)),
        "answered_at": iso(proposal.answered_at) if proposal.answered_at else None,
        "answered_by": proposal.answered_by,
    }


def proposals_read(match: Match, now: datetime) -> list[bodies.Proposal]:
    """The match's proposals, newest first: the open one and the latest closed ones."""
    rows = Proposal.objects.filter(match_id=match.pk).order_by("-created_at", "-pk")[: RECENT + 1]
    active = match.status == Match.Status.ACTIVE
    return [proposal_public(row, now, match_active=active) for row in rows]
