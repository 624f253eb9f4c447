"""Observations: what a bot seat is shown after the start and after each step."""

from __future__ import annotations

import random

from cardgames.bots.base import BaseBot, BotContext, Decision, Observation, RandomBot
from cardgames.bots.observe import observation_for
from cardgames.engines.protocol import Engine, State
from cardgames.engines.rng import DealRng
from games.catalog import get_engine


def memory_match() -> tuple[Engine, State]:
    engine = get_engine("memory")
    assert engine is not None
    options = engine.validate_options({"flips_visible_to": "flipper"}, 2)
    state = engine.initial_state(2, options, DealRng(b"\x01" * 32, "m", [None, None]))
    return engine, state


def test_at_the_start_a_seat_observes_its_view_and_no_events() -> None:
    engine, state = memory_match()
    obs = observation_for(engine, state, 1, None, {"k": 1}, {})
    assert obs.events == []
    assert obs.view == engine.view(state, 1)
    assert obs.seat == 1 and obs.memory == {"k": 1}


def test_a_resolved_step_shows_public_data_and_only_the_seats_own_private_part() -> None:
    engine, state = memory_match()
    to_act = engine.to_act(state)
    flipper = to_act.seats[0]
    move = engine.legal_moves(state, flipper)[0]
    resolution = engine.apply(state, {flipper: move})
    assert resolution.private, "a flipper-only flip has a private part"
    mine = observation_for(engine, resolution.state, flipper, resolution, {}, {})
    other = observation_for(engine, resolution.state, 1 - flipper, resolution, {}, {})
    assert mine.events == [resolution.public | resolution.private[flipper]]
    assert other.events == [resolution.public]
    assert other.events[0]["card"] is None and mine.events[0]["card"] is not None
    assert other.view == engine.view(resolution.state, 1 - flipper)


def test_a_bot_that_only_chooses_keeps_its_memory_when_it_observes() -> None:
    obs = Observation(seat=0, view={}, events=[{"x": 1}], memory={"seen": [1]}, options={})
    assert RandomBot().observe(obs) == {"seen": [1]}


class Counting(BaseBot):
    name = "counting"

    def choose(self, ctx: BotContext) -> Decision:
        return Decision(ctx.rng.choice(ctx.legal_moves), dict(ctx.memory))

    def observe(self, obs: Observation) -> dict[str, object]:
        return {"seen": int(obs.memory.get("seen", 0)) + len(obs.events)}


def test_a_bot_may_remember_what_it_observes() -> None:
    bot = Counting()
    memory: dict[str, object] = {}
    for events in ([], [{"a": 1}], [{"b": 2}]):
        memory = bot.observe(Observation(0, {}, events, memory, {}))
    assert memory == {"seen": 2}
    assert bot.choose(BotContext(0, {}, [{"card": 1}], memory, {}, random.Random(1))).memory == {
        "seen": 2
    }
