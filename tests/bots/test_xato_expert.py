"""Xato ``expert``: it tracks the draft through ``observe``, never calls its own cards,
claims exactly its own life cards, and decides legally and deterministically given its rng."""

from __future__ import annotations

import random
from typing import Any

from cardgames.bots.base import BotContext
from cardgames.bots.observe import observation_for
from cardgames.bots.xato import ExpertXatoBot
from cardgames.engines.protocol import State
from cardgames.engines.rng import DealRng
from cardgames.engines.xato import ENGINE
from games.catalog import bots_of


def test_registered_with_a_bounded_iterations_option() -> None:
    bot = bots_of("xato")["expert"]
    assert isinstance(bot, ExpertXatoBot)
    iterations = bot.options_schema["properties"]["iterations"]
    assert iterations["default"] >= 1 and iterations["maximum"] >= iterations["default"]


def play(options: dict[str, Any], seed: int, iterations: int = 8) -> tuple[State, list[Any]]:
    """A 4-player deal of four experts fed as the server feeds them; every decision is
    checked for legality and for determinism given the rng."""
    opts = ENGINE.validate_options(options, 4)
    state = ENGINE.initial_state(4, opts, DealRng(bytes([seed]) * 32, "x", [None] * 4))
    bot = ExpertXatoBot()
    bot_options = {"iterations": iterations}
    memories: list[dict[str, Any]] = [
        bot.observe(observation_for(ENGINE, state, s, None, {}, bot_options)) for s in range(4)
    ]
    rngs = [random.Random(seed * 10 + s) for s in range(4)]
    events: list[Any] = []
    while (to_act := ENGINE.to_act(state)) is not None:
        moves = {}
        for seat in to_act.seats:
            legal = ENGINE.legal_moves(state, seat)
            view = ENGINE.view(state, seat)
            state_of_rng = rngs[seat].getstate()
            ctx = BotContext(seat, view, legal, memories[seat], bot_options, rngs[seat])
            decision = bot.choose(ctx)
            again = random.Random()
            again.setstate(state_of_rng)
            ctx2 = BotContext(seat, view, legal, memories[seat], bot_options, again)
            assert bot.choose(ctx2) == decision
            ENGINE.check_move(state, seat, decision.move)
            moves[seat] = decision.move
            memories[seat] = decision.memory
        resolution = ENGINE.apply(state, moves)
        state = resolution.state
        events.append(resolution.public)
        for s in range(4):
            obs = observation_for(ENGINE, state, s, resolution, memories[s], bot_options)
            memories[s] = bot.observe(obs)
    return state, events


def test_a_table_only_deal_with_claims_is_legal_and_the_expert_knows_the_draft() -> None:
    state, events = play({"history": "table_only", "strict_memory": True, "max_calls": 40}, 1)
    assert ENGINE.outcome(state) is not None
    calls = [e for e in events if e.get("outcome") is not None]
    assert calls
    # It watched every pick: it never calls one of its own cards (no suicide, no miss on
    # its own hand), and never a card it saw on the table.
    assert all(e["outcome"] not in ("suicide", "blank") for e in calls)
    # Claims: a claim is made exactly by the owner of the life card (no penalties).
    claims = [e for e in events if e.get("kind") == "claim"]
    assert all(not any(e["penalties"]) for e in claims)


def test_full_history_deal_is_legal() -> None:
    state, events = play({"max_calls": 30}, 2)
    assert ENGINE.outcome(state) is not None
    assert sum(1 for e in events if e.get("kind") == "take") == 52
