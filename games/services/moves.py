"""Submitting moves (docs/design.md, "Steps, sealed moves, reveal" and "Commit-reveal").

Sealed protocol: a seat submits its move; it stays sealed until every acting seat has moved,
and the last submission resolves the step in its own transaction. Commit-reveal protocol, on
simultaneous steps: each seat first submits only a commitment; when all are in, the reveal
phase opens; each seat reveals move + salt; the last reveal resolves the step. Turn steps take
plain moves in every protocol, and so do bots and timeouts (the server needs no proof from
itself).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from django.utils.translation import gettext_noop

from accounts.models import User
from cardgames.engines.protocol import IllegalMove as EngineIllegalMove
from core.errors import (
    AlreadySubmitted,
    CommitmentMismatch,
    CommitmentReused,
    IllegalMove,
    MatchNotActive,
    NotSeated,
    NotYourTurn,
    StaleStep,
    WrongPhase,
)
from core.text import Text, status_word
from games import events
from games.models import Match, Move, Seat
from games.services import bodies
from games.services.clock_changes import clock_on_submit
from games.services.fairness import commitment_of, receipt_make
from games.services.steps import match_play_on, move_new, seat_forfeit, step_complete, step_ready
from games.services.unit_of_work import MatchChange, match_change


@dataclass(frozen=True)
class MoveAccepted:
    step: int
    seat: int
    #: As signed (``bodies.Receipt``), or as stored for a repeat.
    receipt: dict[str, Any]
    #: True when this request repeated a move already recorded (answer 200, not 202).
    repeated: bool = False
    #: True for a move the game never shows back to its owner: never compared on a retry.
    secret: bool = False

    def as_dict(self) -> bodies.MoveAnswer:
        return {"step": self.step, "seat": self.seat, "receipt": cast(bodies.Receipt, self.receipt)}


def _acting_seat(tx: MatchChange, *, user: User, step: int) -> Seat:
    """The requester's seat, if it may act in ``step`` now. Checks in the API's precedence
    order: not_seated → stale_step → match_not_active → (the caller: wrong_phase) …"""
    match = tx.match
    seat = tx.seat_of(user.pk)
    if seat is None:
        raise NotSeated()
    if match.status != Match.Status.OPEN and step < match.step:
        recorded = Move.objects.filter(
            match=match, step=step, seat=seat.index, source=Move.Source.PLAYER
        ).exists()
        raise StaleStep(
            Text(gettext_noop("Step %(step)s has already resolved."), step=step), recorded=recorded
        )
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(
            Text(gettext_noop("The match is %(status)s."), status=status_word(match.status))
        )
    if step != match.step:
        raise WrongPhase(
            Text(
                gettext_noop("Step %(step)s is not open; the current step is %(current)s."),
                step=step,
                current=match.step,
            )
        )
    return seat


def _may_act(tx: MatchChange, seat: Seat) -> None:
    if not tx.match.acting_mask >> seat.index & 1 or seat.forfeited:
        raise NotYourTurn()
    if seat.controlled_by == Seat.Controller.BOT:
        raise NotYourTurn(gettext_noop("A bot is playing your seat."))


def _commit_phase(match: Match) -> bool:
    return (
        match.protocol == Match.Protocol.COMMIT_REVEAL
        and match.phase_kind == Match.PhaseKind.SIMULTANEOUS
    )


def move_submit(
    *,
    match_id: uuid.UUID | str,
    user: User,
    step: int,
    move: dict[str, Any] | None,
    commitment: str | None = None,
    now: datetime | None = None,
) -> MoveAccepted:
    """Record the seat's sealed move (or, in a commit phase, its commitment); the last one
    completes the step in this transaction.

    Precedence: not_seated → stale_step → match_not_active → wrong_phase → not_your_turn →
    already_submitted → commitment_reused → illegal_move. ``now``: the change's time (the
    wall clock; tests of clocks give their own).
    """
    with match_change(match_id, now=now) as tx:
        match = tx.match
        seat = _acting_seat(tx, user=user, step=step)
        if match.phase_kind == Match.PhaseKind.REVEAL:
            raise WrongPhase(gettext_noop("This step is in its reveal phase: send a reveal."))
        if _commit_phase(match) and commitment is None:
            raise WrongPhase(gettext_noop("This step takes a commitment first, then a reveal."))
        if not _commit_phase(match) and move is None:
            raise WrongPhase(gettext_noop("This step takes a move, not a commitment."))
        _may_act(tx, seat)
        if match.submitted_mask >> seat.index & 1:
            return _repeat(tx, seat.index, move=move, commitment=commitment)
        if commitment is not None:
            receipt = _commitment_record(tx, seat=seat.index, commitment=commitment)
            return MoveAccepted(step=step, seat=seat.index, receipt=receipt)
        assert move is not None and match.state is not None
        secret = not tx.engine.echoes(match.state, move)
        receipt = move_record(tx, seat=seat.index, move=move, source=Move.Source.PLAYER)
    return MoveAccepted(step=step, seat=seat.index, receipt=receipt, secret=secret)


def _receipt(tx: MatchChange, seat: int, submission: Any, kind: str | None) -> tuple[Any, str]:
    match = tx.match
    public = match.disclose_submitted or step_ready(tx, counting=seat)
    # The receipt names the version this submission leads to, as others will see it.
    return receipt_make(
        match=match,
        step=match.step,
        seat=seat,
        submission=submission,
        version=match.version + (1 if public else 0),
        at=tx.now,
        kind=kind,
    )


def _submitted(tx: MatchChange, seat: int) -> None:
    """Count the seat's submission; the last one completes the step."""
    tx.match.submitted_mask |= 1 << seat
    clock_on_submit(tx, seat)
    if tx.match.disclose_submitted:
        tx.emit(events.MOVE_SUBMITTED({"seat": seat}), step=tx.match.step)
    if step_ready(tx):
        step_complete(tx)


def move_record(tx: MatchChange, *, seat: int, move: dict[str, Any], source: str) -> dict[str, Any]:
    """Check and record one seat's move in the open step, and complete the step if it was the
    last. Shared by players, bots and timeouts; the caller has checked the step and seat.
    Returns the receipt."""
    match = tx.match
    assert match.state is not None
    assert match.phase_kind != Match.PhaseKind.REVEAL, "a reveal phase takes reveals only"
    try:
        tx.engine.check_move(match.state, seat, move)
    except EngineIllegalMove as exc:
        raise IllegalMove(exc.reason) from exc
    receipt, salt = _receipt(tx, seat, move, None)
    move_new(tx, seat, move, source, receipt=receipt, receipt_salt=salt)
    _submitted(tx, seat)
    return dict(receipt)


def _commitment_record(tx: MatchChange, *, seat: int, commitment: str) -> dict[str, Any]:
    match = tx.match
    if Move.objects.filter(match=match, commitment=commitment).exists():
        raise CommitmentReused(gettext_noop("This commitment was already used in this match."))
    receipt, salt = _receipt(tx, seat, {"commitment": commitment}, "commitment")
    move_new(
        tx,
        seat,
        None,
        Move.Source.PLAYER,
        commitment=commitment,
        receipt=receipt,
        receipt_salt=salt,
    )
    _submitted(tx, seat)
    return dict(receipt)


def reveal_submit(
    *, match_id: uuid.UUID | str, user: User, step: int, move: dict[str, Any], salt: str
) -> MoveAccepted:
    """Reveal the move a seat committed to. The last reveal resolves the step.

    A mismatch is refused (retry allowed until the deadline). A matching reveal of an illegal
    move forfeits the seat: that change is committed, then ``IllegalMove`` is raised with
    ``forfeited: true``.
    """
    with match_change(match_id) as tx:
        match = tx.match
        seat = _acting_seat(tx, user=user, step=step)
        if match.phase_kind != Match.PhaseKind.REVEAL:
            raise WrongPhase(
                gettext_noop("No reveal phase is open: commit first, and wait for the others.")
            )
        _may_act(tx, seat)
        recorded = Move.objects.get(match=match, step=step, seat=seat.index)
        if recorded.payload is not None:
            assert match.state is not None
            secret = not tx.engine.echoes(match.state, recorded.payload)
            if (
                not secret
                and recorded.payload == move
                and recorded.salt == salt
                and recorded.reveal_receipt
            ):
                return MoveAccepted(
                    step=step, seat=seat.index, receipt=recorded.reveal_receipt, repeated=True
                )
            raise AlreadySubmitted(
                gettext_noop("Your seat has already revealed its move for this step.")
            )
        expected = commitment_of(
            match_id=str(match.id), step=step, seat=seat.index, move=move, salt=salt
        )
        if expected != recorded.commitment:
            raise CommitmentMismatch(
                gettext_noop("The move and salt do not match your commitment.")
            )
        assert match.state is not None
        refusal: IllegalMove | None = None
        try:
            tx.engine.check_move(match.state, seat.index, move)
        except EngineIllegalMove as exc:
            # The forfeit is committed; then the move is refused.
            seat_forfeit(tx, seat, reason="illegal_reveal")
            match_play_on(tx)
            refusal = IllegalMove(exc.reason, forfeited=True)
        else:
            receipt = _reveal_record(tx, recorded, move=move, salt=salt)
    if refusal is not None:
        raise refusal
    secret = not tx.engine.echoes(tx.match.state or {}, move)
    return MoveAccepted(step=step, seat=seat.index, receipt=receipt, secret=secret)


def _reveal_record(tx: MatchChange, recorded: Move, *, move: dict[str, Any], salt: str) -> Any:
    seat = recorded.seat
    receipt, receipt_salt = _receipt(tx, seat, {"move": move, "salt": salt}, "reveal")
    tx.update_move(
        recorded,
        payload=move,
        salt=salt,
        reveal_receipt=receipt,
        reveal_receipt_salt=receipt_salt,
    )
    _submitted(tx, seat)
    return receipt


def _repeat(
    tx: MatchChange, seat: int, *, move: dict[str, Any] | None, commitment: str | None
) -> MoveAccepted:
    """An identical re-post answers with the original receipt; a different one is refused.

    A move the game never echoes (Xato's life cards) is never compared: answering "same" or
    "different" would let its owner test guesses against it.
    """
    match = tx.match
    recorded = Move.objects.get(match=match, step=match.step, seat=seat)
    assert match.state is not None
    if recorded.payload is not None and not tx.engine.echoes(match.state, recorded.payload):
        raise AlreadySubmitted(
            gettext_noop("A move is already recorded for your seat in this step.")
        )
    same = (
        recorded.commitment == commitment
        if commitment is not None
        else recorded.payload == move and not recorded.commitment
    )
    # Only the player's own move is theirs to repeat: a stand-in's (a timeout, an operator's
    # forced move) that happens to be the same card still means the player's came too late.
    if not same or recorded.receipt is None or recorded.source != Move.Source.PLAYER:
        raise AlreadySubmitted()
    return MoveAccepted(step=match.step, seat=seat, receipt=recorded.receipt, repeated=True)
