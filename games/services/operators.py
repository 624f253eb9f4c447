"""What an operator may do to a running match (docs/design.md, "Time, timeouts, bots").

Every action names its operator and a reason, both written into a public event: aborting a
match, extending or forcing the current step's deadline, handing a human seat to a bot and
giving it back. None of them can undo a forfeit or reveal a sealed move. Like every service:
one unit of work (``match_change``): the match row locked first, checks, then the change.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import MatchNotActive, PermissionDenied, StaleStep, ValidationFailed
from core.text import Text, at_most_characters, one_of, seat_between, status_word
from games import events
from games.catalog import bots_of, get_bot
from games.events import timestamp
from games.models import Match, Move, Seat
from games.services.bot_seats import bot_options_validate
from games.services.clock_changes import clocks_add
from games.services.clocks_shown import deadline_shown
from games.services.deadlines import MAX_STEP_SECONDS, step_time_out
from games.services.steps import match_abort_in
from games.services.unit_of_work import MatchChange, match_change

MAX_REASON = 500
DEFAULT_BOT = "greedy"


def _reason(reason: str) -> str:
    text = (reason or "").strip()
    if not text:
        raise ValidationFailed({"reason": [gettext_noop("A reason is required.")]})
    if len(text) > MAX_REASON:
        raise ValidationFailed({"reason": [at_most_characters(MAX_REASON)]})
    return text


def _operator(operator: User) -> str:
    if not (operator.is_active and operator.is_staff):
        raise PermissionDenied(gettext_noop("Only staff may operate matches."))
    return operator.username


def _active(match: Match, *, step: int | None) -> None:
    """The match must be running, and (when the caller names one) still at ``step``."""
    if match.status != Match.Status.ACTIVE:
        raise MatchNotActive(
            Text(gettext_noop("The match is %(status)s."), status=status_word(match.status))
        )
    if step is not None and step != match.step:
        raise StaleStep(
            Text(
                gettext_noop("Step %(step)s is no longer open; the current step is %(current)s."),
                step=step,
                current=match.step,
            )
        )


def _seat(seats: list[Seat], index: int) -> Seat:
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(seats):
        raise ValidationFailed({"seat": [seat_between(len(seats) - 1)]})
    return seats[index]


def _players_seat(tx: MatchChange, index: int, no_player: str) -> Seat:
    """Seat ``index`` of an active match, which must have a player."""
    _active(tx.match, step=None)
    target = _seat(tx.seats, index)
    if target.user_id is None:
        raise ValidationFailed({"seat": [no_player]})
    return target


def _control(seat: Seat, controller: str, *, bot: str, options: dict[str, Any]) -> None:
    seat.controlled_by = controller
    seat.bot = bot
    seat.bot_options = options


def _holds_unrevealed_commitment(match: Match, seat: Seat) -> bool:
    return (
        match.protocol == Match.Protocol.COMMIT_REVEAL
        and Move.objects.filter(
            match=match, step=match.step, seat=seat.index, payload__isnull=True
        ).exists()
    )


def match_abort(*, match_id: uuid.UUID | str, operator: User, reason: str) -> Match:
    """End an open or active match without a result (``reason: aborted``); the seed is
    published like that of any match that is over."""
    reason = _reason(reason)
    name = _operator(operator)
    with match_change(match_id) as tx:
        if tx.match.status not in (Match.Status.OPEN, Match.Status.ACTIVE):
            raise MatchNotActive(
                Text(gettext_noop("The match is %(status)s."), status=status_word(tx.match.status))
            )
        match_abort_in(tx, reason=reason, operator=name)
    return tx.match


def deadline_extend(
    *,
    match_id: uuid.UUID | str,
    operator: User,
    reason: str,
    seconds: int,
    step: int | None = None,
) -> Match:
    """Give the seats of a timed match's open step ``seconds`` more. An overdue step gets them
    from now, so the extension is never already over."""
    reason = _reason(reason)
    name = _operator(operator)
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 1:
        raise ValidationFailed({"seconds": [gettext_noop("A positive whole number of seconds.")]})
    if seconds > MAX_STEP_SECONDS:
        raise ValidationFailed(
            {"seconds": [Text(gettext_noop("At most %(high)s."), high=MAX_STEP_SECONDS)]}
        )
    with match_change(match_id) as tx:
        match = tx.match
        _active(match, step=step)
        if match.deadline is None:
            raise MatchNotActive(
                gettext_noop("This step has no deadline to extend (an untimed match).")
            )
        # The deadline watch is scheduled again; the old task finds the step not yet due.
        if match.clocks is not None and match.phase_kind != Match.PhaseKind.REVEAL:
            clocks_add(tx, seconds)  # every running clock gets them
        else:
            match.deadline = max(match.deadline, tx.now) + timedelta(seconds=seconds)
        extended = events.DEADLINE_EXTENDED(
            {
                "operator": name,
                "reason": reason,
                "seconds": seconds,
                "deadline": timestamp(deadline_shown(match, [s.forfeited for s in tx.seats])) or "",
            }
        )
        tx.emit(extended, step=match.step)
    return match


def step_force_timeout(
    *,
    match_id: uuid.UUID | str,
    operator: User,
    reason: str,
    step: int | None = None,
) -> Match:
    """Time the open step out now, as its deadline would (``deadlines.step_expire``): under
    ``auto_move`` (and for untimed matches) the stand-in bot moves for every late seat, under
    ``forfeit`` they forfeit. One change: the operator's event, then the timeout."""
    reason = _reason(reason)
    name = _operator(operator)
    with match_change(match_id) as tx:
        match = tx.match
        _active(match, step=step)
        match.deadline = tx.now
        tx.emit(events.DEADLINE_FORCED({"operator": name, "reason": reason}), step=match.step)
        step_time_out(tx, forced=True)
    return match


def seat_replace_with_bot(
    *,
    match_id: uuid.UUID | str,
    seat: int,
    operator: User,
    reason: str,
    bot: str = DEFAULT_BOT,
) -> Match:
    """Hand a human seat to bot ``bot``; the player keeps the seat (``seat_return`` gives it
    back). If the seat must move now, the bot's move is scheduled on commit."""
    reason = _reason(reason)
    name = _operator(operator)
    with match_change(match_id) as tx:
        match = tx.match
        target = _players_seat(tx, seat, "Only a player's seat can be handed to a bot.")
        if target.forfeited:
            raise ValidationFailed(
                {"seat": [gettext_noop("This seat has forfeited; a stand-in plays it.")]}
            )
        if target.controlled_by == Seat.Controller.BOT:
            raise ValidationFailed({"seat": [gettext_noop("A bot is already playing this seat.")]})
        if _holds_unrevealed_commitment(match, target):
            # A bot cannot reveal a move it never committed to; the player must reveal first.
            raise ValidationFailed(
                {
                    "seat": [
                        gettext_noop(
                            "This seat has committed in the open step: replace it after it reveals."
                        )
                    ]
                }
            )
        if get_bot(match.game, bot) is None:
            raise ValidationFailed({"bot": [one_of(sorted(bots_of(match.game)))]})
        options = bot_options_validate(game=match.game, name=bot, options=None, field="seat")
        _control(target, Seat.Controller.BOT, bot=bot, options=options)
        # Follow-ups on commit: the bot moves if its seat is waiting in the open step.
        replaced = events.SEAT_REPLACED(
            {"seat": target.index, "operator": name, "reason": reason, "bot": bot}
        )
        tx.emit(replaced, step=match.step)
    return match


def seat_return(*, match_id: uuid.UUID | str, seat: int, operator: User, reason: str) -> Match:
    """Give a seat an operator handed to a bot back to its player. Never undoes a forfeit, and
    never turns a seat created as a bot (it has no player) into a player's."""
    reason = _reason(reason)
    name = _operator(operator)
    with match_change(match_id) as tx:
        match = tx.match
        target = _players_seat(tx, seat, "This seat has no player to give it back to.")
        if target.forfeited:
            raise PermissionDenied(gettext_noop("This seat has forfeited; a forfeit is final."))
        if target.controlled_by != Seat.Controller.BOT:
            raise ValidationFailed(
                {"seat": [gettext_noop("The player already controls this seat.")]}
            )
        _control(target, Seat.Controller.PLAYER, bot="", options={})
        returned = events.SEAT_RETURNED({"seat": target.index, "operator": name, "reason": reason})
        tx.emit(returned, step=match.step)
    return match
