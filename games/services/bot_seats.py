"""Bot seats: validating them at creation, and playing their moves when a step opens."""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

import jsonschema
from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from cardgames.engines.options import schema_reason
from core.errors import NotFound, ValidationFailed
from core.text import one_of
from games.catalog import bots_of, get_bot
from games.models import Match, Move, Seat
from games.services.bot_decisions import bot_decide
from games.services.follow_ups import bots_waiting
from games.services.moves import move_record
from games.services.unit_of_work import match_change

log = logging.getLogger(__name__)


def bot_options_validate(*, game: str, name: str, options: Any, field: str) -> dict[str, Any]:
    """The bot's options with defaults filled; ``field`` names the seat in error paths."""
    bot = get_bot(game, name)
    if bot is None:
        raise ValidationFailed({f"{field}.bot": [one_of(sorted(bots_of(game)))]})
    options = options if options is not None else {}
    validator = jsonschema.Draft202012Validator(bot.options_schema)
    problems = sorted(validator.iter_errors(options), key=lambda e: list(e.path))
    if problems:
        where = f"{field}.options"
        raise ValidationFailed(
            {".".join([where, *map(str, e.path)]): [schema_reason(e)] for e in problems}
        )
    filled = {
        key: spec["default"]
        for key, spec in bot.options_schema.get("properties", {}).items()
        if "default" in spec
    }
    return filled | dict(options)


def bot_moves_play(*, match_id: uuid.UUID | str, step: int) -> int:
    """Every bot-controlled seat that must act in ``step`` moves, through the same path as a
    player's move. Idempotent: a step that has moved on, or bots that have moved, are left."""
    try:
        with match_change(match_id) as tx:
            match = tx.match
            if match.status != Match.Status.ACTIVE or match.step != step:
                return 0
            played = 0
            for seat in tx.seats:
                if match.step != step or not bots_waiting(match, [seat]):
                    continue
                move = bot_decide(tx, seat, name=seat.bot, options=seat.bot_options)
                move_record(tx, seat=seat.index, move=move, source=Move.Source.BOT)
                played += 1
    except NotFound:
        return 0
    return played


def stalled_bot_steps(*, now: datetime, limit: int = 500) -> QuerySet[Seat, tuple[Any, ...]]:
    """(match id, step) of active matches with a bot seat still waiting well after its step
    opened: the sweep's query (bench/queries.py measures it).

    It starts from the bot seats a live match waits for (``Seat.awaiting_move``, kept by the
    unit of work for active matches only; the partial index ``seat_bot_waiting`` holds just
    those seats), so it costs the waiting bots, never the whole seat table or every active
    match. One row per match: ``DISTINCT`` on the two selected columns, with the ordering
    cleared (the seat model's default ordering would add its columns to the ``DISTINCT``, and
    a match with two waiting bots would be nudged twice)."""
    cutoff = now - timedelta(seconds=settings.FACEDOWN_BOT_STALL_SECONDS)
    return (
        Seat.objects.filter(
            awaiting_move=True,
            controlled_by=Seat.Controller.BOT,
            match__status=Match.Status.ACTIVE,
            match__step_opened_at__lte=cutoff,
        )
        .exclude(match__phase_kind=Match.PhaseKind.REVEAL)
        .order_by()
        .values_list("match_id", "match__step")
        .distinct()[:limit]
    )


def stalled_bots_sweep(*, now: datetime | None = None, limit: int = 500) -> int:
    """Play the bot seats still waiting well after their step opened (their task was lost, or
    the embedded worker was not running). Returns how many moves were made."""
    stalled = stalled_bot_steps(now=now or timezone.now(), limit=limit)
    played = 0
    for match_id, step in stalled:
        try:  # one broken match must not stall every other match's bots
            played += bot_moves_play(match_id=match_id, step=step)
        except Exception:
            log.exception("bot moves for step %s of match %s failed", step, match_id)
    return played
