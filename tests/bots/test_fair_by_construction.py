"""Fair by construction: every bot of every game decides from its seat's view, its memory and
its own randomness only. Redrawing everything hidden from the bot's seat (the engine's
``shuffle_hidden``, as the conformance run does) must not change its decision for the same
random seed, for a few seeds, at several points of a playout in which it observed every step.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from cardgames.bots.base import Bot, BotContext, concrete
from cardgames.bots.observe import observation_for
from cardgames.engines.protocol import Engine, InvalidOptions, State
from cardgames.engines.rng import DealRng
from games.catalog import RECORDS

CHECKPOINTS = 4  # decisions checked per bot and seat count
SEEDS = 3  # random seeds compared per decision


def _seat_counts(engine: Engine) -> list[int]:
    """The fewest and the most players the default options allow."""
    counts = []
    for players in range(engine.min_players, engine.max_players + 1):
        try:
            engine.validate_options({}, players)
        except InvalidOptions:
            continue
        counts.append(players)
    return sorted({counts[0], counts[-1]})


CASES = [
    pytest.param(record.engine, bot, players, id=f"{record.slug}-{name}-{players}p")
    for record in RECORDS
    for name, bot in record.bots.items()
    for players in _seat_counts(record.engine)
]


def _deal(number: int, players: int) -> DealRng:
    return DealRng(random.Random(number).randbytes(32), f"fair-{number}", [None] * players)


def _options(bot: Bot) -> dict[str, Any]:
    return {
        key: spec["default"]
        for key, spec in bot.options_schema.get("properties", {}).items()
        if "default" in spec
    }


def _decide(engine: Engine, bot: Bot, state: State, seat: int, memory: Any, seed: int) -> Any:
    options = _options(bot)
    decision = bot.choose(
        BotContext(
            seat=seat,
            view=engine.view(state, seat),
            legal_moves=engine.legal_moves(state, seat),
            memory=memory,
            options=options,
            rng=random.Random(seed),
        )
    )
    return json.loads(json.dumps([decision.move, decision.memory]))


@pytest.mark.parametrize(("engine", "bot", "players"), CASES)
def test_a_bots_decision_does_not_depend_on_what_its_seat_cannot_see(
    engine: Engine, bot: Bot, players: int
) -> None:
    options = engine.validate_options({}, players)
    state = engine.initial_state(players, options, _deal(players, players))
    memories: list[Any] = [{} for _ in range(players)]

    def observe(resolution: Any) -> None:
        for seat in range(players):
            obs = observation_for(engine, state, seat, resolution, memories[seat], _options(bot))
            memories[seat] = json.loads(json.dumps(bot.observe(obs)))

    observe(None)
    mover = random.Random(players)
    checked = redrawn = step = 0
    while (to_act := engine.to_act(state)) is not None and (checked < CHECKPOINTS or not redrawn):
        step += 1
        seat = to_act.seats[0]
        legal = engine.legal_moves(state, seat)
        if (step % 3 == 1 or not redrawn) and len(legal) > 1:
            hidden = engine.shuffle_hidden(state, seat, _deal(1000 + step, players))
            redrawn += hidden != state
            assert engine.legal_moves(hidden, seat) == legal
            for seed in range(SEEDS):
                expected = _decide(engine, bot, state, seat, memories[seat], seed)
                assert _decide(engine, bot, hidden, seat, memories[seat], seed) == expected
            checked += 1
        moves = {
            s: concrete(mover.choice(engine.legal_moves(state, s)), mover) for s in to_act.seats
        }
        resolution = engine.apply(state, moves)
        state = resolution.state
        observe(resolution)
    assert checked > 0 and redrawn > 0  # decisions were compared on redrawn states
