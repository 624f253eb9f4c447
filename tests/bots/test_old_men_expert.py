"""Old Men of the Forest ``expert``: legal, deterministic given its rng, counts cards through
``observe``, and beats greedy seats in a small fixed-seed arena run."""

from __future__ import annotations

import random

import pytest

from bench import arena
from cardgames.bots import old_men_of_the_forest as old_men
from cardgames.bots.base import BotContext, Observation
from cardgames.bots.old_men_of_the_forest import ExpertOldMenBot, unseen_cards
from cardgames.engines.old_men_of_the_forest import ENGINE
from cardgames.engines.rng import DealRng
from games.catalog import bots_of

GAME = "old-men-of-the-forest"


def test_registered_with_a_bounded_samples_option() -> None:
    bot = bots_of(GAME)["expert"]
    assert isinstance(bot, ExpertOldMenBot)
    samples = bot.options_schema["properties"]["samples"]
    assert samples["default"] >= 1 and samples["maximum"] >= samples["default"]


def test_observe_counts_the_cards_played_in_this_game() -> None:
    state = ENGINE.initial_state(3, {}, DealRng(b"\x02" * 32, "om", [None] * 3))
    bot = ExpertOldMenBot()
    memory = bot.observe(Observation(0, ENGINE.view(state, 0), [], {}, {}))
    played = []
    for _ in range(3):
        (seat,) = ENGINE.to_act(state).seats
        move = ENGINE.legal_moves(state, seat)[0]
        resolution = ENGINE.apply(state, {seat: move})
        state = resolution.state
        played.append(move["play"])
        memory = bot.observe(Observation(0, ENGINE.view(state, 0), [resolution.public], memory, {}))
    assert memory["seen"] == played
    unseen = unseen_cards(ENGINE.view(state, 0), memory["seen"])
    assert len(unseen) == 50 - 10 - 2  # seat 0 played one of its ten; the others two
    assert not set(unseen) & set(played)


def test_decisions_are_legal_and_deterministic_given_the_rng() -> None:
    state = ENGINE.initial_state(4, {}, DealRng(b"\x03" * 32, "om", [None] * 4))
    bot = ExpertOldMenBot()
    steps = 0
    while (to_act := ENGINE.to_act(state)) is not None and steps < 40:
        (seat,) = to_act.seats
        legal = ENGINE.legal_moves(state, seat)
        view = ENGINE.view(state, seat)

        moves = [
            bot.choose(BotContext(seat, view, legal, {}, {"samples": 3}, random.Random(steps))).move
            for _ in range(2)
        ]
        move = moves[0]
        assert move in legal
        assert moves[1] == move
        state = ENGINE.apply(state, {seat: move}).state
        steps += 1


def test_one_expert_beats_greedy_seats() -> None:
    config = arena.Config(
        game=GAME,
        lineup=("expert", "greedy", "greedy"),
        deals=6,
        seed=3,
        bot_options={"expert": {"samples": 4}},
    )
    result = arena.summary(config, arena.run(config, jobs=2))
    expert = next(row for row in result["bots"] if row["bot"] == "expert")
    assert expert["win_rate"] > 1 / 3
    assert expert["margin"] > 0


def test_one_expert_beats_greedy_seats_at_four_players() -> None:
    config = arena.Config(
        game=GAME,
        lineup=("expert", "greedy", "greedy", "greedy"),
        deals=10,
        seed=3,
    )
    result = arena.summary(config, arena.run(config, jobs=2))
    expert = next(row for row in result["bots"] if row["bot"] == "expert")
    assert expert["win_rate"] > 1 / 4
    assert expert["margin"] > 0


def test_a_decision_plays_at_most_samples_times_the_legal_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = ENGINE.initial_state(4, {}, DealRng(b"\x05" * 32, "om", [None] * 4))
    (seat,) = ENGINE.to_act(state).seats
    legal = ENGINE.legal_moves(state, seat)
    playouts: list[int] = []
    original = old_men.Playout.finish

    def counted(self: old_men.Playout) -> list[int]:
        playouts.append(1)
        return original(self)

    monkeypatch.setattr(old_men.Playout, "finish", counted)
    view = ENGINE.view(state, seat)
    ExpertOldMenBot().choose(BotContext(seat, view, legal, {}, {"samples": 6}, random.Random(1)))
    assert len(legal) == 10
    # Successive halving: 4 rounds of 60 // 4 = 15 playouts, the last topped up to the budget.
    assert len(playouts) <= 6 * len(legal)
    assert len(playouts) >= 6 * len(legal) - len(legal)
