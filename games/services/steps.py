"""Opening, resolving and finishing steps; shared by every service that moves a match on.

The functions here work on a ``Transition`` whose match row is locked; they never save.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from games.engine.protocol import Move as EngineMove
from games.engine.protocol import Outcome, is_template
from games.models import Match, Move
from games.services.standins import bot_decide, stand_in_name
from games.services.transition import Transition

_MATCH_FIELDS = {
    "state",
    "step",
    "phase_kind",
    "acting_mask",
    "submitted_mask",
    "scores",
    "deadline",
    "step_opened_at",
}


def step_deadline(match: Match, now: datetime) -> datetime | None:
    """When the step opening now times out, or None for an untimed match."""
    seconds = (match.time_control or {}).get("per_step_seconds")
    return now + timedelta(seconds=seconds) if seconds else None


def _stand_in_move(tx: Transition, seat: int) -> EngineMove:
    """A forfeited seat's move, made by the match's stand-in bot."""
    return bot_decide(tx, tx.seats[seat], name=stand_in_name(tx))


def phase_public(match: Match) -> dict[str, Any]:
    """The phase as every viewer may see it (no submissions, no own move)."""
    return {
        "kind": match.phase_kind,
        "to_act": match.to_act,
        "deadline": match.deadline.isoformat().replace("+00:00", "Z") if match.deadline else None,
    }


def _record(tx: Transition, seat: int, move: EngineMove, source: str) -> None:
    tx.moves.append(
        Move(
            match=tx.match,
            step=tx.match.step,
            seat=seat,
            payload=move,
            source=source,
            submitted_at=tx.now,
        )
    )


def step_advance(tx: Transition) -> None:
    """Open the current step of ``tx.match.state``; play it at once while nobody has a choice.

    A step is played by the server when every acting seat has exactly one legal move (forced),
    or when every acting seat has forfeited (the engine's timeout move stands in for them).
    """
    match, engine = tx.match, tx.engine
    tx.changed_fields |= _MATCH_FIELDS
    while True:
        assert match.state is not None
        to_act = engine.to_act(match.state)
        match.scores = engine.scores(match.state)
        if to_act is None:
            match_finish(tx, reason="completed")
            return
        match.acting_mask = sum(1 << seat for seat in to_act.seats)
        match.submitted_mask = 0
        match.phase_kind = (
            Match.PhaseKind.SIMULTANEOUS if to_act.simultaneous else Match.PhaseKind.TURN
        )
        match.deadline = step_deadline(match, tx.now)
        match.step_opened_at = tx.now
        tx.deadline_set = match.deadline is not None
        tx.emit("step_opened", step=match.step, data=phase_public(match))
        forced: dict[int, EngineMove] = {}
        for seat in to_act.seats:
            legal = engine.legal_moves(match.state, seat)
            if seat not in tx.forfeited and len(legal) == 1 and not is_template(legal[0]):
                forced[seat] = legal[0]
        if any(seat not in forced and seat not in tx.forfeited for seat in to_act.seats):
            return  # someone has a choice: the step waits (forfeited seats move at resolution)
        moves: dict[int, EngineMove] = {}
        for seat in to_act.seats:
            if seat in forced:
                moves[seat] = forced[seat]
                _record(tx, seat, forced[seat], Move.Source.FORCED)
            else:  # asked only now, once, so its memory records one decision
                moves[seat] = _stand_in_move(tx, seat)
                _record(tx, seat, moves[seat], Move.Source.FORFEIT)
        step_resolve(tx, moves, advance=False)


def step_ready(tx: Transition, *, counting: int | None = None) -> bool:
    """Whether every acting seat that has not forfeited has submitted (``counting`` that seat
    as submitted too)."""
    submitted = tx.match.submitted_mask | (1 << counting if counting is not None else 0)
    pending = tx.match.acting_mask & ~submitted
    return all(seat in tx.forfeited for seat in Match.seats_of(pending))


def step_complete(tx: Transition) -> None:
    """Every seat is in: resolve the step, or under commit-reveal open its reveal phase."""
    match = tx.match
    if (
        match.protocol == Match.Protocol.COMMIT_REVEAL
        and match.phase_kind == Match.PhaseKind.SIMULTANEOUS
    ):
        reveal_phase_open(tx)
    else:
        step_resolve(tx, step_moves(tx))


def reveal_phase_open(tx: Transition) -> None:
    """All commitments are in: seats now reveal. Moves the server made (bots, timeouts) need
    no reveal and count as revealed; a step with nothing left to reveal resolves at once."""
    match = tx.match
    match.phase_kind = Match.PhaseKind.REVEAL
    match.submitted_mask = sum(1 << seat for seat in step_moves(tx))
    match.deadline = step_deadline(match, tx.now)
    match.step_opened_at = tx.now
    tx.deadline_set = match.deadline is not None
    tx.changed_fields |= _MATCH_FIELDS
    tx.emit("step_opened", step=match.step, data=phase_public(match))
    if step_ready(tx):
        step_resolve(tx, step_moves(tx))


def step_moves(tx: Transition) -> dict[int, EngineMove]:
    """Every move recorded (and, under commit-reveal, revealed) in the open step: earlier ones
    from the database, this change's own from memory."""
    step = tx.match.step
    mine = {
        move.seat: dict(move.payload)
        for move in tx.moves
        if move.step == step and move.payload is not None
    }
    earlier = tx.match.submitted_mask & ~sum(1 << seat for seat in mine)
    return (submitted_moves(tx.match) if earlier else {}) | mine


def submitted_moves(match: Match) -> dict[int, EngineMove]:
    """The sealed moves recorded so far in the current step, by seat."""
    rows = Move.objects.filter(match=match, step=match.step, payload__isnull=False).only(
        "seat", "payload"
    )
    return {row.seat: dict(row.payload or {}) for row in rows}


def step_resolve(tx: Transition, moves: dict[int, EngineMove], *, advance: bool = True) -> None:
    """Apply every acting seat's move; forfeited seats missing from ``moves`` get timeout moves."""
    match, engine = tx.match, tx.engine
    assert match.state is not None
    missing = [seat for seat in match.to_act if seat not in moves]
    committed: set[int] = set()
    if missing and match.protocol == Match.Protocol.COMMIT_REVEAL:
        rows = Move.objects.filter(match=match, step=match.step, seat__in=missing)
        committed = set(rows.values_list("seat", flat=True))
    for seat in missing:
        moves[seat] = _stand_in_move(tx, seat)
        if seat in committed:  # it committed, then forfeited: its stand-in fills the row
            Move.objects.filter(match=match, step=match.step, seat=seat).update(
                payload=moves[seat], source=Move.Source.FORFEIT
            )
        else:
            _record(tx, seat, moves[seat], Move.Source.FORFEIT)
    resolution = engine.apply(match.state, moves)
    table_only = engine.history_mode(match.options) == "table_only"
    tx.emit(
        "step_resolved",
        step=match.step,
        data=resolution.public,
        private=resolution.private,
        table_only=table_only,
    )
    match.state = resolution.state
    match.step += 1
    tx.changed_fields |= _MATCH_FIELDS
    if advance:
        step_advance(tx)


def match_finish(tx: Transition, *, reason: str) -> None:
    """End the match: result, ranking (forfeited seats last), and the seed made public."""
    match, engine = tx.match, tx.engine
    outcome: Outcome | None = None
    if reason == "completed" and match.state is not None:
        outcome = engine.outcome(match.state, tx.forfeited)
    if outcome is None:
        outcome = _outcome_by_forfeit(tx)
    match.result = {
        "scores": list(outcome.scores),
        "winners": list(outcome.winners),
        "ranking": [list(group) for group in outcome.ranking],
        "reason": reason,
    }
    match.status = Match.Status.FINISHED
    match.phase_kind = Match.PhaseKind.NONE
    match.acting_mask = match.submitted_mask = 0
    match.deadline = None
    match.finished_at = tx.now
    tx.changed_fields |= _MATCH_FIELDS | {"result", "status", "deadline", "finished_at"}
    tx.emit("match_finished", step=match.step, data=match.result)


def _outcome_by_forfeit(tx: Transition) -> Outcome:
    """Fewer than two seats remain: the survivors win, forfeited seats rank last."""
    scores = tuple(tx.match.scores) or tuple(0 for _ in tx.seats)
    survivors = tuple(seat.index for seat in tx.seats if not seat.forfeited)
    forfeited = tuple(seat.index for seat in tx.seats if seat.forfeited)
    ranking = tuple(group for group in (survivors, forfeited) if group)
    return Outcome(scores=scores, winners=survivors, ranking=ranking)
