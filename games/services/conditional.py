"""Conditional sealed moves (docs/design.md, "Conditional moves").

A seat's holder stores an ordered list of rules for its future steps (``conditional_rules``);
they live in their own table (``ConditionalMoves``, one row per seat), so no reader of a match
ever loads them, and they are written only under the match's lock (``match_change``), so a
replacement and a step opening serialize.

Every change that opens a simultaneous step of a match that takes conditional moves enqueues,
on commit, the job ``conditional_moves`` for that step, whether or not any seat holds rules:
the request that opened the step neither reads the rules nor branches on them, so its answer
and its timing say nothing about them. The job (``conditional_moves_play``) looks the rules up
under the lock and plays the first matching rule of each seat still to move through the same
path as a player's move (``moves.move_record``, source ``conditional``, with a receipt), for
exactly that step; the rule played is used up. Running it twice changes nothing.

A job the task runner lost is made up for by the periodic sweep
(``stalled_conditional_sweep``), within ``SWEEP_WINDOW`` of its step opening.

A seat's rules are deleted when it forfeits (a resignation is one), when it changes hands (a
substitute takes it over: ``conditional_moves_drop``) and when the match ends.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta
from functools import partial
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import ConditionalMovesUnavailable, MatchNotActive, NotFound, NotSeated
from games import dispatch, events
from games.models import ConditionalMoves, Match, Move, Seat, SeatTenure
from games.services import bodies
from games.services.conditional_rules import Rule, conditional_offered, rule_pick, rules_validate
from games.services.moves import move_record
from games.services.unit_of_work import MatchChange, follow_up_register, match_change

log = logging.getLogger(__name__)

JOB = "conditional_moves"


def conditional_moves_read(*, match_id: uuid.UUID | str, user: User) -> bodies.ConditionalMoves:
    """The requester's own seat's rules (a seat's holder only: everyone else is not seated)."""
    match = Match.objects.only("id", "game", "protocol", "time_control").filter(pk=match_id).first()
    if match is None:
        raise NotFound(gettext_noop("No match with this id."))
    seat = Seat.objects.only("index").filter(match_id=match.pk, user_id=user.pk).first()
    if seat is None:
        raise NotSeated()
    if not conditional_offered(match.game, match.protocol, match.time_control):
        raise ConditionalMovesUnavailable()
    row = ConditionalMoves.objects.filter(match_id=match.pk, seat=seat.index).first()
    return _shown(match.pk, seat.index, user.pk, row.rules if row is not None else [])


def conditional_moves_replace(
    *, match_id: uuid.UUID | str, user: User, rules: object, now: datetime | None = None
) -> bodies.ConditionalMoves:
    """Replace the requester's seat's rules (an empty list clears them). Rules set while a step
    is open apply to it too, if the seat has not moved yet: the job is enqueued for it."""
    with match_change(match_id, now=now) as tx:
        seat = _own_seat(tx, user)
        stored = rules_validate(tx.match.game, tx.match.options, rules)
        row = ConditionalMoves.objects.filter(match_id=tx.match.pk, seat=seat.index).first()
        if not stored:
            conditional_moves_drop(tx, seat.index)
        elif row is None:
            ConditionalMoves.objects.create(
                match_id=tx.match.pk, seat=seat.index, rules=stored, updated_at=tx.now
            )
        else:
            tx.update_row(row, rules=stored, updated_at=tx.now)
        if stored:
            _job_on_commit(tx)
    return _shown(tx.match.pk, seat.index, user.pk, stored)


def _own_seat(tx: MatchChange, user: User) -> Seat:
    """The requester's seat, if it may hold rules now. Precedence: not_seated →
    conditional_moves_unavailable → match_not_active."""
    seat = tx.seat_of(user.pk)
    if seat is None:
        raise NotSeated()
    match = tx.match
    if not conditional_offered(match.game, match.protocol, match.time_control):
        raise ConditionalMovesUnavailable()
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(gettext_noop("Conditional moves are set in an active match."))
    if seat.forfeited:
        raise MatchNotActive(gettext_noop("Your seat has forfeited."))
    return seat


def _tenure_start(match_id: uuid.UUID, seat: int, user_id: int) -> int:
    """The first step ``user_id`` holds ``seat`` for: a substitute's from its taking over, a
    seat that never changed hands from the start."""
    tenure = SeatTenure.objects.filter(
        match_id=match_id, seat=seat, user_id=user_id, to_step__isnull=True
    ).values_list("from_step", flat=True)
    return tenure.first() or 0


def _shown(
    match_id: uuid.UUID, seat: int, user_id: int, rules: list[Rule]
) -> bodies.ConditionalMoves:
    """The seat's rules and what they played in the reader's own tenure: a substitute never
    learns when (or whether) the seat's former holder played by rule."""
    played = Move.objects.filter(
        match_id=match_id,
        seat=seat,
        source=Move.Source.CONDITIONAL,
        step__gte=_tenure_start(match_id, seat, user_id),
    ).order_by("step")
    return {
        "seat": seat,
        "rules": [{"pot": rule["pot"], "card": rule["card"]} for rule in rules],
        "played": [
            {"step": move.step, "card": card_of(move), "receipt": cast(Any, move.receipt)}
            for move in played.only("step", "payload", "receipt")
        ],
    }


def card_of(move: Move) -> int:
    assert move.payload is not None
    return int(move.payload["card"])


def conditional_moves_drop(tx: MatchChange, seat_index: int) -> None:
    """Delete a seat's rules in the open change: the seat forfeited or passed to someone else
    (a substitute), so no rule its former holder set may play for it."""
    ConditionalMoves.objects.filter(match_id=tx.match.pk, seat=seat_index).delete()


def conditional_moves_play(*, match_id: uuid.UUID | str, step: int) -> int:
    """Play the rules that match ``step`` for every seat still to move in it; returns how many
    were played. Idempotent: a step that has moved on, or seats that have moved, are left."""
    if not ConditionalMoves.objects.filter(match_id=match_id).exists():
        return 0  # no lock for a match without rules (a replacement enqueues its own job)
    try:
        with match_change(match_id) as tx:
            return _play(tx, step)
    except NotFound:
        return 0


def _play(tx: MatchChange, step: int) -> int:
    match = tx.match
    if not _open_for_rules(match, step):
        return 0
    rows = {row.seat: row for row in ConditionalMoves.objects.filter(match_id=match.pk)}
    played = 0
    for seat in tx.seats:
        row = rows.get(seat.index)
        if row is None or match.step != step or not _waiting(match, seat):
            continue
        assert match.state is not None
        state = match.state
        index = rule_pick(row.rules, pot=state["pot"], hand=state["hands"][seat.index])
        if index is None:
            continue
        card = row.rules[index]["card"]
        left = [rule for i, rule in enumerate(row.rules) if i != index]
        if left:
            tx.update_row(row, rules=left, updated_at=tx.now)
        else:
            conditional_moves_drop(tx, seat.index)
        move_record(tx, seat=seat.index, move={"card": card}, source=Move.Source.CONDITIONAL)
        played += 1
    return played


#: How long after its step opened a seat's rules are still looked at by the sweep: a job the
#: broker lost is made up for by the next sweeps, and a seat none of whose rules match is not
#: looked at again for ever (it moves by hand, or its clock decides).
SWEEP_WINDOW = timedelta(hours=1)


def stalled_conditional_steps(
    *, now: datetime, limit: int = 500
) -> QuerySet[ConditionalMoves, tuple[Any, ...]]:
    """(match id, step) of active matches with a seat that holds rules and still waits, its
    step opened between ``SWEEP_WINDOW`` and ``FACEDOWN_BOT_STALL_SECONDS`` ago. It starts from
    the rules, so it costs the seats that hold some, never the seat or match tables."""
    latest = now - timedelta(seconds=settings.FACEDOWN_BOT_STALL_SECONDS)
    waiting = Seat.objects.filter(
        match_id=OuterRef("match_id"), index=OuterRef("seat"), awaiting_move=True
    )
    return (
        ConditionalMoves.objects.filter(
            Exists(waiting),
            match__status=Match.Status.ACTIVE,
            match__phase_kind=Match.PhaseKind.SIMULTANEOUS,
            match__step_opened_at__gt=latest - SWEEP_WINDOW,
            match__step_opened_at__lte=latest,
        )
        .order_by()
        .values_list("match_id", "match__step")
        .distinct()[:limit]
    )


def stalled_conditional_sweep(*, now: datetime | None = None, limit: int = 500) -> int:
    """Play the rules of seats still waiting a while after their step opened (its job was lost,
    or the worker was down). Returns how many moves were made."""
    played = 0
    for match_id, step in stalled_conditional_steps(now=now or timezone.now(), limit=limit):
        try:  # one broken match must not stop the others
            played += conditional_moves_play(match_id=match_id, step=step)
        except Exception:
            log.exception("conditional moves for step %s of match %s failed", step, match_id)
    return played


def _open_for_rules(match: Match, step: int) -> bool:
    return (
        match.status == Match.Status.ACTIVE
        and match.step == step
        and match.phase_kind == Match.PhaseKind.SIMULTANEOUS
        and conditional_offered(match.game, match.protocol, match.time_control)
    )


def _waiting(match: Match, seat: Seat) -> bool:
    """A seat its holder plays (not handed to a bot, not forfeited) that must still move."""
    return (
        seat.controlled_by == Seat.Controller.PLAYER
        and not seat.forfeited
        and bool(match.acting_mask >> seat.index & 1)
        and not match.submitted_mask >> seat.index & 1
    )


def _job_on_commit(tx: MatchChange) -> None:
    enqueue = partial(dispatch.enqueue, JOB, str(tx.match.pk), tx.match.step)
    transaction.on_commit(enqueue, robust=True)


_ENDED = frozenset({events.MATCH_FINISHED.name, events.MATCH_ABORTED.name})


def conditional_follow_up(tx: MatchChange) -> None:
    """The unit of work's follow-up: drop the rules a change made void, and enqueue the job
    for a step the change opened (module docstring). It looks only at what the change holds,
    never at the rules, so a change costs the same with rules and without."""
    match = tx.match
    if not conditional_offered(match.game, match.protocol, match.time_control):
        return
    types = {event.type for event in tx.events}
    if types & _ENDED:
        ConditionalMoves.objects.filter(match_id=match.pk).delete()
        return
    if match.status != Match.Status.ACTIVE:
        return
    forfeited = {
        cast(events.SeatForfeited, event.data)["seat"]
        for event in tx.events
        if event.type == events.SEAT_FORFEITED.name
    }
    passed = {
        seat.index
        for seat, held in zip(tx.seats, tx.holders_read, strict=True)
        if seat.user_id != held
    }
    for index in sorted(forfeited | passed):
        conditional_moves_drop(tx, index)
    if events.STEP_OPENED.name in types and _open_for_rules(match, match.step):
        _job_on_commit(tx)


follow_up_register(conditional_follow_up)
