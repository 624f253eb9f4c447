"""Bot decisions for a seat: bot seats, timed-out players and forfeited seats alike.

The bot is handed only the seat's view and legal moves; what it remembers goes back into the
seat row's ``bot_memory``, written with the change. Its randomness comes from the operating
system, never from the deal.
"""

from __future__ import annotations

import random
from typing import Any

from cardgames.bots import BotContext
from cardgames.engines.protocol import Move as EngineMove
from games.catalog import get_bot
from games.models import Seat
from games.services.unit_of_work import MatchChange

DEFAULT_STAND_IN = "greedy"
_system_random = random.SystemRandom()


def stand_in_name(tx: MatchChange) -> str:
    """The bot that moves for a timed-out or forfeited seat of this match."""
    return str((tx.match.time_control or {}).get("auto_move_bot") or DEFAULT_STAND_IN)


def bot_decide(
    tx: MatchChange, seat: Seat, *, name: str, options: dict[str, Any] | None = None
) -> EngineMove:
    """Ask bot ``name`` for ``seat``'s move now; its memory is saved with the seat."""
    match, engine = tx.match, tx.engine
    assert match.state is not None
    bot = get_bot(match.game, name)
    legal = engine.legal_moves(match.state, seat.index)
    if bot is None or not legal:
        return engine.timeout_move(match.state, seat.index)
    decision = bot.choose(
        BotContext(
            seat=seat.index,
            view=engine.view(match.state, seat.index),
            legal_moves=legal,
            memory=seat.bot_memory or {},
            options=options or {},
            rng=_system_random,
        )
    )
    seat.bot_memory = decision.memory  # written with the change, if it differs
    return decision.move
