"""Submitting a sealed move (DESIGN.md, "Steps, sealed moves, reveal")."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from accounts.models import User
from games.engine.protocol import IllegalMove as EngineIllegalMove
from games.errors import (
    AlreadySubmitted,
    IllegalMove,
    MatchNotActive,
    NotSeated,
    NotYourTurn,
    StaleStep,
    WrongPhase,
)
from games.locks import match_lock_with_seats
from games.models import Match, Move, Seat
from games.services.fairness import receipt_make
from games.services.steps import step_ready, step_resolve, submitted_moves
from games.services.transition import Transition


@dataclass(frozen=True)
class MoveAccepted:
    step: int
    seat: int
    receipt: dict[str, Any]
    #: True when this request repeated a move already recorded (answer 200, not 202).
    repeated: bool = False
    #: True for a move the game never shows back to its owner: never compared on a retry.
    secret: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "seat": self.seat, "receipt": self.receipt}


def move_submit(
    *,
    match_id: uuid.UUID | str,
    user: User,
    step: int,
    move: dict[str, Any] | None,
    commitment: str | None = None,
) -> MoveAccepted:
    """Record the seat's sealed move; resolve the step in this transaction if it was the last.

    Checks run in the API's precedence order: not_seated → stale_step → match_not_active →
    wrong_phase → not_your_turn → already_submitted → illegal_move.
    """
    with transaction.atomic():
        match, seats = match_lock_with_seats(match_id)
        tx = Transition(match=match, seats=seats)
        seat = tx.seat_of(user.pk)
        if seat is None:
            raise NotSeated()
        if match.status != Match.Status.OPEN and step < match.step:
            recorded = Move.objects.filter(
                match=match, step=step, seat=seat.index, source=Move.Source.PLAYER
            ).exists()
            raise StaleStep(f"Step {step} has already resolved.", recorded=recorded)
        if match.status != Match.Status.ACTIVE:
            raise MatchNotActive(f"The match is {match.status}.")
        if step != match.step:
            raise WrongPhase(f"Step {step} is not open; the current step is {match.step}.")
        if match.phase_kind == Match.PhaseKind.REVEAL:
            raise WrongPhase("This step is in its reveal phase: send a reveal.")
        if move is None or commitment is not None:
            raise WrongPhase("This match uses the sealed protocol: send a move, not a commitment.")
        bit = 1 << seat.index
        if not match.acting_mask & bit or seat.forfeited:
            raise NotYourTurn()
        if seat.controlled_by == Seat.Controller.BOT:
            raise NotYourTurn("A bot is playing your seat.")
        if match.submitted_mask & bit:
            return _repeat(tx, seat.index, move)
        assert match.state is not None
        secret = not tx.engine.echoes(match.state, move)
        receipt = move_record(tx, seat=seat.index, move=move, source=Move.Source.PLAYER)
        tx.save()
    return MoveAccepted(step=step, seat=seat.index, receipt=receipt, secret=secret)


def move_record(tx: Transition, *, seat: int, move: dict[str, Any], source: str) -> dict[str, Any]:
    """Check and record one seat's move in the open step, and resolve the step if it is
    complete. Shared by players, bots and timeouts; the caller has checked the step and seat.
    Returns the receipt."""
    match = tx.match
    assert match.state is not None
    try:
        tx.engine.check_move(match.state, seat, move)
    except EngineIllegalMove as exc:
        raise IllegalMove(str(exc)) from exc
    step, bit = match.step, 1 << seat
    match.submitted_mask |= bit
    tx.changed_fields.add("submitted_mask")
    public = match.disclose_submitted or step_ready(tx)
    # The receipt names the version this submission leads to, as others will see it.
    receipt, salt = receipt_make(
        match=match,
        step=step,
        seat=seat,
        submission=move,
        version=match.version + (1 if public else 0),
        at=tx.now,
    )
    tx.moves.append(
        Move(
            match=match,
            step=step,
            seat=seat,
            payload=move,
            source=source,
            receipt=receipt,
            receipt_salt=salt,
            submitted_at=tx.now,
        )
    )
    if match.disclose_submitted:
        tx.emit("move_submitted", step=step, data={"seat": seat}, show_at=False)
    if step_ready(tx):
        step_resolve(tx, _recorded_moves(tx, step))
    return receipt


def _recorded_moves(tx: Transition, step: int) -> dict[int, dict[str, Any]]:
    """Every move recorded for ``step``: earlier ones from the database, this change's own."""
    mine = {move.seat: dict(move.payload or {}) for move in tx.moves if move.step == step}
    earlier = tx.match.submitted_mask & ~sum(1 << seat for seat in mine)
    return (submitted_moves(tx.match) if earlier else {}) | mine


def _repeat(tx: Transition, seat: int, move: dict[str, Any]) -> MoveAccepted:
    """An identical re-post answers with the original receipt; a different move is refused.

    A move the game never echoes (Xato's life cards) is never compared: answering "same" or
    "different" would let its owner test guesses against it.
    """
    match = tx.match
    recorded = Move.objects.get(match=match, step=match.step, seat=seat)
    assert match.state is not None
    if not tx.engine.echoes(match.state, recorded.payload or {}):
        raise AlreadySubmitted("A move is already recorded for your seat in this step.")
    if recorded.payload != move or recorded.receipt is None:
        raise AlreadySubmitted()
    return MoveAccepted(step=match.step, seat=seat, receipt=recorded.receipt, repeated=True)
