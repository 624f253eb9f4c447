"""The GOPS expert: its matrix-game solver agrees with HiGHS, it is unexploitable where it
solves the game exactly, its decisions are legal and repeatable, and it beats random."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.gops_arena import duplicate
from bench.gops_exploitability import exploitability
from cardgames.bots import gops_solver
from cardgames.bots.base import BotContext
from cardgames.bots.gops import ExpertGopsBot, GreedyGopsBot
from cardgames.engines.gops import ENGINE
from cardgames.engines.rng import DealRng
from games.catalog import bots_of


def test_simplex_agrees_with_highs() -> None:
    chooser = random.Random(7)
    for _ in range(120):
        rows, cols = chooser.randint(1, 7), chooser.randint(1, 7)
        matrix = [[float(chooser.randint(-6, 6)) for _ in range(cols)] for _ in range(rows)]
        value, strategy = gops_solver.solve_matrix(matrix)
        reference, _ = gops_solver.solve_matrix_highs(matrix)
        assert value == pytest.approx(reference, abs=1e-9)
        assert sum(strategy) == pytest.approx(1.0)
        # the strategy guarantees the value against every column
        worst = min(sum(p * matrix[r][c] for r, p in enumerate(strategy)) for c in range(cols))
        assert worst == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("tie_rule", ["penguin", "discard"])
def test_expert_is_unexploitable_at_four_cards(tie_rule: str) -> None:
    assert exploitability(ExpertGopsBot(), 4, tie_rule) <= 1e-6
    # the same best response finds greedy's weakness
    assert exploitability(GreedyGopsBot(), 4, tie_rule) >= 1.0


def test_final_tie_to_game_winner_is_solved_too() -> None:
    value = exploitability(ExpertGopsBot(), 4, "penguin", "to_game_winner")
    assert value <= 1e-6


def decisions(number: int, options: dict[str, Any]) -> list[int]:
    """The expert's cards in a whole game against greedy, every move checked for legality."""
    rng = DealRng(random.Random(number).randbytes(32), f"gops-test-{number}", [None, None])
    state = ENGINE.initial_state(2, options, rng)
    bots = [bots_of("gops")["expert"], bots_of("gops")["greedy"]]
    rngs = [random.Random(number), random.Random(number + 1)]
    played = []
    while (acting := ENGINE.to_act(state)) is not None:
        moves = {}
        for seat in acting.seats:
            legal = ENGINE.legal_moves(state, seat)
            ctx = BotContext(seat, ENGINE.view(state, seat), legal, {}, {}, rngs[seat])
            decision = bots[seat].choose(ctx)
            assert decision.move in legal
            assert decision.memory == {}
            moves[seat] = decision.move
        played.append(moves[0]["card"])
        state = ENGINE.apply(state, moves).state
    return played


@pytest.mark.parametrize("options", [{"num_cards": 13}, {"num_cards": 8, "tie_rule": "discard"}])
def test_decisions_are_legal_and_repeatable(options: dict[str, Any]) -> None:
    first = decisions(3, options)
    assert sorted(first) == list(range(1, options["num_cards"] + 1))
    assert decisions(3, options) == first


def test_policy_is_a_distribution_over_the_hand() -> None:
    view = {
        "hand": list(range(1, 14)),
        "remaining_prizes": list(range(1, 13)),
        "pot": [13],
        "history": [],
        "turns": 13,
        "scores": [0, 0],
    }
    strategy = ExpertGopsBot().policy(view, 0, {})
    assert set(strategy) <= set(range(1, 14))
    assert sum(strategy.values()) == pytest.approx(1.0)
    assert all(p >= 0 for p in strategy.values())


def test_expert_beats_random_in_a_short_duplicate_run() -> None:
    # exact from 5 cards to keep it short; the arena measures the default (docs/bots.md)
    options = {"exact_cards": 5}
    results = [
        duplicate((deal, "expert", "random", {"num_cards": 13}, options)) for deal in range(8)
    ]
    margins = [margin for margin, _, _ in results]
    assert sum(margins) / len(margins) >= 10
