"""Hols der Geier expert: always legal, deterministic given its rng, remembers what it
observed, and beats the rank-mapping rule (a bounded check)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bench.hols_rules import RankHolsBot
from cardgames.bots.base import BaseBot, BotContext
from cardgames.bots.hols_der_geier import ExpertHolsBot, play_out, rank_bid, winner_of
from cardgames.bots.observe import observation_for
from cardgames.engines.hols_der_geier import ENGINE
from cardgames.engines.rng import DealRng
from games.catalog import bots_of


def deal_rng(number: int, players: int) -> DealRng:
    seed = random.Random(number).randbytes(32)
    return DealRng(seed, f"00000000-0000-0000-0000-{number:012d}", [None] * players)


def play(
    number: int, bots: list[BaseBot], options: dict[str, Any], bot_options: dict[str, Any]
) -> list[int]:
    """A whole game, fed as the server feeds bots (observe after the start and every step),
    checking every move and every memory; the final scores."""
    players = len(bots)
    state: Any = ENGINE.initial_state(players, options, deal_rng(number, players))
    memories: list[dict[str, Any]] = [{} for _ in bots]
    rngs = [random.Random(number * 10 + seat) for seat in range(players)]
    resolution = None
    while True:
        for seat, bot in enumerate(bots):
            observation = observation_for(ENGINE, state, seat, resolution, memories[seat], {})
            memories[seat] = json.loads(json.dumps(bot.observe(observation)))
        if ENGINE.to_act(state) is None:
            return ENGINE.scores(state)
        moves = {}
        for seat, bot in enumerate(bots):
            legal = ENGINE.legal_moves(state, seat)
            ctx = BotContext(
                seat=seat,
                view=ENGINE.view(state, seat),
                legal_moves=legal,
                memory=memories[seat],
                options=bot_options if isinstance(bot, ExpertHolsBot) else {},
                rng=rngs[seat],
            )
            decision = bot.choose(ctx)
            assert decision.move in legal
            memories[seat] = json.loads(json.dumps(decision.memory))
            moves[seat] = decision.move
        resolution = ENGINE.apply(state, moves)
        state = resolution.state


def test_registered() -> None:
    assert isinstance(bots_of("hols-der-geier")["expert"], ExpertHolsBot)
    assert ExpertHolsBot.options_schema["properties"]["samples"]["default"] == 24


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"history": "table_only"},
        {"deals": 2, "history": "table_only"},
        {"final_tiebreak": "shared"},
    ],
)
def test_expert_always_moves_legally(options: dict[str, Any]) -> None:
    for players in (2, 3, 5):
        bots: list[BaseBot] = [ExpertHolsBot()] + [RankHolsBot()] * (players - 1)
        play(players, bots, options, {"samples": 2})


def test_expert_remembers_every_spent_card_under_table_only() -> None:
    """Under ``table_only`` the views show only the last card of each pile; ``observe`` keeps
    the whole list, which matches what the seats really spent."""
    bot = ExpertHolsBot()
    state: Any = ENGINE.initial_state(3, {"history": "table_only"}, deal_rng(1, 3))
    memory: dict[str, Any] = bot.observe(observation_for(ENGINE, state, 0, None, {}, {}))
    played: list[list[int]] = [[], [], []]
    for turn in range(6):
        moves = {seat: {"card": 15 - turn - seat} for seat in range(3)}
        for seat in range(3):
            played[seat].append(15 - turn - seat)
        resolution = ENGINE.apply(state, moves)
        state = resolution.state
        memory = bot.observe(observation_for(ENGINE, state, 0, resolution, memory, {}))
    assert memory["spent"] == [sorted(cards) for cards in played]
    assert ENGINE.view(state, 0)["history"] == []


def test_expert_is_deterministic_given_its_rng() -> None:
    state: Any = ENGINE.initial_state(4, {}, deal_rng(3, 4))
    bot = ExpertHolsBot()

    def decide(seed: int) -> Any:
        return bot.choose(
            BotContext(
                seat=1,
                view=ENGINE.view(state, 1),
                legal_moves=ENGINE.legal_moves(state, 1),
                memory={},
                options={"samples": 6},
                rng=random.Random(seed),
            )
        )

    assert all(decide(7) == decide(7) for _ in range(3))
    assert len({decide(seed).move["card"] for seed in range(12)}) > 1  # a mixed strategy


def test_cancellation_and_play_out() -> None:
    assert winner_of(7, [14, 14, 12, 4]) == 2
    assert winner_of(-3, [2, 2, 9]) == 2
    assert winner_of(5, [10, 10, 6, 6]) is None
    # Last turn, all cancel: the pot is removed.
    assert play_out([[7], [7]], 9, [], [0, 0], [7, 7], random.Random(0)) == [0, 0]
    # A carried pot goes to the next unique bid.
    final = play_out([[3, 5], [3, 9]], 4, [6], [0, 0], [3, 3], random.Random(0))
    assert final == [0, 10]
    assert rank_bid([1, 2, 3, 4, 5], 10, [1, 2, 3], random.Random(0)) == 5
    assert rank_bid([1, 2, 3, 4, 5], -1, [8, 9, 10], random.Random(0)) == 1


def test_expert_beats_the_rank_rule() -> None:
    """A bounded strength check: two players, seats swapped on every deal, few samples."""
    margin = 0
    for number in range(8):
        for expert_seat in (0, 1):
            bots: list[BaseBot] = [RankHolsBot(), RankHolsBot()]
            bots[expert_seat] = ExpertHolsBot()
            scores = play(number, bots, {}, {"samples": 8})
            margin += scores[expert_seat] - scores[1 - expert_seat]
    assert margin > 0
