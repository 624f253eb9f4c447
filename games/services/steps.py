"""Opening, resolving and ending steps and matches; shared by every service that moves a match
on. Each of these exists once: a seat's forfeit, the match's finish, its abort.

The functions here work on an open ``MatchChange`` (its match row locked); they never write:
the unit of work does, on exit.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connection

from cardgames.bots.observe import observation_for
from cardgames.engines.protocol import Move as EngineMove
from cardgames.engines.protocol import Outcome, Resolution, is_template
from games import events
from games.catalog import get_bot
from games.events import MatchResult, SeatEntry
from games.match_store import json_column
from games.models import Match, Move, Seat
from games.services.bot_decisions import bot_decide, stand_in_name
from games.services.clock_changes import clocks_begin, clocks_open, clocks_settle
from games.services.clocks_shown import deadline_shown
from games.services.ratings import ratings_on_finish
from games.services.unit_of_work import MatchChange


def phase_public(match: Match, seats: list[Seat]) -> events.StepOpened:
    """The phase as every viewer may see it (no submissions, no own move)."""
    return {
        "kind": match.phase_kind,  # type: ignore[typeddict-item]
        "to_act": match.to_act,
        "deadline": events.timestamp(deadline_shown(match, [seat.forfeited for seat in seats])),
    }


def seats_public(seats: list[Seat]) -> list[SeatEntry]:
    return [
        {
            "index": s.index,
            "player": s.user.username if s.user is not None else None,
            "bot": s.bot or None,
            "accepted": s.accepted,
        }
        for s in seats
    ]


def _stand_in_move(tx: MatchChange, seat: int) -> EngineMove:
    """A forfeited seat's move, made by the match's stand-in bot."""
    return bot_decide(tx, tx.seats[seat], name=stand_in_name(tx))


def move_new(
    tx: MatchChange, seat: int, payload: EngineMove | None, source: str, **extra: Any
) -> None:
    """Add a move of the open step to the change."""
    tx.add_move(
        Move(
            match=tx.match,
            step=tx.match.step,
            seat=seat,
            payload=payload,
            source=source,
            submitted_at=tx.now,
            **extra,
        )
    )


def match_start(tx: MatchChange, state: Any) -> None:
    """Every seat is filled and accepted: the match starts from ``state`` (the deal)."""
    match = tx.match
    match.state = state
    match.status = Match.Status.ACTIVE
    match.step = 1
    match.started_at = tx.now
    tx.emit(events.MATCH_STARTED({"seats": seats_public(tx.seats)}))
    clocks_begin(tx)
    bots_observe(tx, None)
    step_advance(tx)


def bots_observe(tx: MatchChange, resolution: Resolution[Any] | None) -> None:
    """Every seat a bot plays (bot seats, seats handed to a bot, forfeited seats and their
    stand-in) observes the match's new state: the start (``resolution`` None) or the step just
    resolved, as that seat may read it. Each new memory is written with the change; human
    seats are left alone."""
    match, engine = tx.match, tx.engine
    assert match.state is not None
    for seat in tx.seats:
        if seat.controlled_by == Seat.Controller.BOT and seat.bot:
            name, options = seat.bot, seat.bot_options or {}
        elif seat.forfeited:
            name, options = stand_in_name(tx), {}  # as ``bot_decide`` asks the stand-in
        else:
            continue
        bot = get_bot(match.game, name)
        if bot is None:
            continue
        memory = seat.bot_memory or {}
        observation = observation_for(engine, match.state, seat.index, resolution, memory, options)
        # stored as JSON: the next call within this change sees what a later one would read
        seat.bot_memory = json.loads(json.dumps(bot.observe(observation)))


def step_advance(tx: MatchChange) -> None:
    """Open the current step of ``tx.match.state``; play it at once while nobody has a choice.

    A step is played by the server when every acting seat has exactly one legal move (forced),
    or when every acting seat has forfeited (the engine's timeout move stands in for them).
    """
    match, engine = tx.match, tx.engine
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
        _phase_open(tx)
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
                move_new(tx, seat, forced[seat], Move.Source.FORCED)
            else:  # asked only now, once, so its memory records one decision
                moves[seat] = _stand_in_move(tx, seat)
                move_new(tx, seat, moves[seat], Move.Source.FORFEIT)
        step_resolve(tx, moves, advance=False)


def _phase_open(tx: MatchChange) -> None:
    match = tx.match
    clocks_open(tx)
    match.step_opened_at = tx.now
    tx.emit(events.STEP_OPENED(phase_public(match, tx.seats)), step=match.step)


def step_ready(tx: MatchChange, *, counting: int | None = None) -> bool:
    """Whether every acting seat that has not forfeited has submitted (``counting`` that seat
    as submitted too)."""
    submitted = tx.match.submitted_mask | (1 << counting if counting is not None else 0)
    pending = tx.match.acting_mask & ~submitted
    return all(seat in tx.forfeited for seat in Match.seats_of(pending))


def step_complete(tx: MatchChange) -> None:
    """Every seat is in: resolve the step, or under commit-reveal open its reveal phase."""
    match = tx.match
    if (
        match.protocol == Match.Protocol.COMMIT_REVEAL
        and match.phase_kind == Match.PhaseKind.SIMULTANEOUS
    ):
        reveal_phase_open(tx)
    else:
        step_resolve(tx, step_moves(tx))


def reveal_phase_open(tx: MatchChange) -> None:
    """All commitments are in: seats now reveal. Moves the server made (bots, timeouts) need
    no reveal and count as revealed; a step with nothing left to reveal resolves at once."""
    match = tx.match
    match.phase_kind = Match.PhaseKind.REVEAL
    match.submitted_mask = sum(1 << seat for seat in step_moves(tx))
    _phase_open(tx)
    if step_ready(tx):
        step_resolve(tx, step_moves(tx))


def step_moves(tx: MatchChange) -> dict[int, EngineMove]:
    """Every move recorded (and, under commit-reveal, revealed) in the open step: earlier ones
    as the match lock read them when they are all there (``locks.StepMoves``), else from the
    database; this change's own from memory."""
    mine = tx.step_payloads()
    earlier = tx.match.submitted_mask & ~sum(1 << seat for seat in mine)
    if not earlier:
        return mine
    read = tx.step_moves_read
    if read is not None and read.step == tx.match.step:
        found = {seat: payload for seat, payload in read.payloads.items() if seat not in mine}
        if set(found) == set(Match.seats_of(earlier)):  # what the database holds now
            return {seat: dict(payload) for seat, payload in found.items()} | mine
    return submitted_moves(tx.match) | mine


_SUBMITTED_SQL = (
    f"SELECT seat, payload FROM {Move._meta.db_table}"
    " WHERE match_id = %s AND step = %s AND payload IS NOT NULL"
)


def submitted_moves(match: Match) -> dict[int, EngineMove]:
    """The sealed moves recorded so far in the current step, by seat. Plain SQL: the
    queryset's compilation cost more than the query on every step a move completes."""
    with connection.cursor() as cursor:
        match_id = Match._meta.pk.get_db_prep_value(match.pk, connection)
        cursor.execute(_SUBMITTED_SQL, [match_id, match.step])
        rows = cursor.fetchall()
    return {seat: dict(json_column(payload)) for seat, payload in rows}


def step_resolve(tx: MatchChange, moves: dict[int, EngineMove], *, advance: bool = True) -> None:
    """Apply every acting seat's move; forfeited seats missing from ``moves`` get timeout moves."""
    match, engine = tx.match, tx.engine
    assert match.state is not None
    missing = [seat for seat in match.to_act if seat not in moves]
    committed: dict[int, Move] = {}
    if missing and match.protocol == Match.Protocol.COMMIT_REVEAL:
        rows = Move.objects.filter(match=match, step=match.step, seat__in=missing).only("seat")
        committed = {row.seat: row for row in rows}
    for seat in missing:
        moves[seat] = _stand_in_move(tx, seat)
        if seat in committed:  # it committed, then forfeited: its stand-in fills the row
            tx.update_move(committed[seat], payload=moves[seat], source=Move.Source.FORFEIT)
        else:
            move_new(tx, seat, moves[seat], Move.Source.FORFEIT)
    resolution = engine.apply(match.state, moves)
    tx.emit(
        events.STEP_RESOLVED(resolution.public, private=resolution.private),
        step=match.step,
        table_only=engine.history_mode(match.options) == "table_only",
    )
    match.state = resolution.state
    clocks_settle(tx)
    match.step += 1
    bots_observe(tx, resolution)
    if advance:
        step_advance(tx)


def seat_forfeit(tx: MatchChange, seat: Seat, *, reason: events.ForfeitReason) -> None:
    """The seat forfeits, for good: a stand-in bot plays it on. Call ``match_play_on`` once the
    change's forfeits are done."""
    seat.forfeited = True
    tx.emit(events.SEAT_FORFEITED({"seat": seat.index, "reason": reason}), step=tx.match.step)


def match_play_on(tx: MatchChange) -> None:
    """After forfeits: fewer than two seats left ends the match; otherwise the open step
    resolves if the seats still playing have all moved."""
    if len(tx.active_seats()) < 2:
        match_finish(tx, reason="forfeit")
    elif tx.match.acting_mask and step_ready(tx):
        step_complete(tx)


def _match_close(tx: MatchChange, status: str, result: MatchResult) -> None:
    match = tx.match
    match.result = dict(result)
    match.status = status
    match.phase_kind = Match.PhaseKind.NONE
    match.acting_mask = match.submitted_mask = 0
    match.deadline = None
    match.finished_at = tx.now


def match_finish(tx: MatchChange, *, reason: events.FinishReason) -> None:
    """End the match: result, ranking (forfeited seats last), the seed made public, and the
    human players' ratings and records updated in this same change."""
    match, engine = tx.match, tx.engine
    outcome: Outcome | None = None
    if reason == "completed" and match.state is not None:
        outcome = engine.outcome(match.state, tx.forfeited)
    if outcome is None:
        outcome = _outcome_by_forfeit(tx)
    result: MatchResult = {
        "scores": list(outcome.scores),
        "winners": list(outcome.winners),
        "ranking": [list(group) for group in outcome.ranking],
        "reason": reason,
    }
    _match_close(tx, Match.Status.FINISHED, result)
    # The step the match ended in: run to completion, the last step resolved (``match.step``
    # already points past it); ended by forfeit, the open step, as the forfeit's own event.
    ended_in = match.step - 1 if reason == "completed" else match.step
    ratings = ratings_on_finish(tx, result)
    tx.emit(events.MATCH_FINISHED({**result, "ratings": ratings}), step=ended_in)


def match_abort_in(
    tx: MatchChange,
    *,
    reason: str,
    seat: int | None = None,
    operator: str | None = None,
    decline_reason: str | None = None,
) -> None:
    """End the match without a result (declined, creator left, or an operator)."""
    result: MatchResult = {
        "scores": list(tx.match.scores) or [0] * len(tx.seats),
        "winners": [],
        "ranking": [],
        "reason": "aborted",
    }
    _match_close(tx, Match.Status.ABORTED, result)
    data: events.MatchAborted = {"operator": operator, "reason": reason, "seat": seat}
    if decline_reason is not None:
        data["decline_reason"] = decline_reason
    tx.emit(events.MATCH_ABORTED(data))


def _outcome_by_forfeit(tx: MatchChange) -> Outcome:
    """Fewer than two seats remain: the survivors win, forfeited seats rank last."""
    scores = tuple(tx.match.scores) or tuple(0 for _ in tx.seats)
    survivors = tuple(seat.index for seat in tx.seats if not seat.forfeited)
    forfeited = tuple(seat.index for seat in tx.seats if seat.forfeited)
    ranking = tuple(group for group in (survivors, forfeited) if group)
    return Outcome(scores=scores, winners=survivors, ranking=ranking)
