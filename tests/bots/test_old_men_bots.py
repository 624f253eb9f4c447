"""Old Men of the Forest bots: always legal over seeded full games, greedy beats random."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardgames.bots.base import Bot, BotContext
from cardgames.bots.old_men_of_the_forest import GreedyOldMenBot, reach, take_gain
from cardgames.engines.old_men_of_the_forest import ENGINE, ORANGUTANS
from cardgames.engines.protocol import State
from cardgames.engines.rng import DealRng
from games.catalog import bots_of

OLD_MEN_BOTS = bots_of("old-men-of-the-forest")


def deal_rng(number: int, players: int) -> DealRng:
    seed = random.Random(number).randbytes(32)
    return DealRng(seed, f"bots-{number}", [None] * players)


def play_game(bots: list[Bot], number: int, options: dict[str, Any] | None = None) -> State:
    """A full game of ``bots`` (one per seat), each seeing only its view."""
    players = len(bots)
    state = ENGINE.initial_state(players, options or {}, deal_rng(number, players))
    memories: list[dict[str, Any]] = [{} for _ in range(players)]
    rngs = [random.Random(number * 10 + seat) for seat in range(players)]
    while (to_act := ENGINE.to_act(state)) is not None:
        (seat,) = to_act.seats
        legal = ENGINE.legal_moves(state, seat)
        decision = bots[seat].choose(
            BotContext(
                seat=seat,
                view=ENGINE.view(state, seat),
                legal_moves=legal,
                memory=memories[seat],
                options={},
                rng=rngs[seat],
            )
        )
        assert decision.move in legal
        ENGINE.check_move(state, seat, decision.move)
        memories[seat] = decision.memory
        state = ENGINE.apply(state, {seat: decision.move}).state
    return state


def test_exported_bots() -> None:
    assert set(OLD_MEN_BOTS) == {"random", "greedy", "expert"}
    for name, bot in OLD_MEN_BOTS.items():
        assert bot.name == name
        assert bot.options_schema["type"] == "object"


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (3, {}),
        (4, {"deforestation_penalty": "replace"}),
        (5, {"allow_five": True, "games": 2}),
    ],
)
def test_bots_always_play_legal_moves(players: int, options: dict[str, Any]) -> None:
    for number in range(4):
        bots = [
            OLD_MEN_BOTS["greedy" if (seat + number) % 2 else "random"] for seat in range(players)
        ]
        state = play_game(bots, number, options)
        assert ENGINE.outcome(state) is not None


def test_greedy_beats_random_on_average() -> None:
    greedy_total = random_total = 0
    greedy_orangutans = random_orangutans = 0
    games = 24
    for number in range(games):
        seat = number % 3
        bots = [OLD_MEN_BOTS["random"]] * 3
        bots[seat] = OLD_MEN_BOTS["greedy"]
        state = play_game(bots, 1000 + number)
        scores = ENGINE.scores(state)
        greedy_total += scores[seat]
        random_total += sum(scores) - scores[seat]
        won = [len(entries) for entries in state["won"]]
        greedy_orangutans += won[seat]
        random_orangutans += sum(won) - won[seat]
    assert greedy_total / games > random_total / (2 * games) + 3
    assert greedy_orangutans > random_orangutans / 2


def test_greedy_decisions() -> None:
    bot = GreedyOldMenBot()
    layout = [
        {"id": i, **{k: ORANGUTANS[i][k] for k in ("name", "points", "requires")}}
        for i in ("OU01", "OU05", "OU12")
    ]
    rng = random.Random(0)
    view: dict[str, Any] = {
        "layout": layout,
        "collections": [["Y2"], [], []],
        "trick": [{"seat": 1, "card": "Y7", "taken_by": None}],
    }
    # cash in for the most valuable affordable orang-utan
    moves = [
        {"cash_in": None},
        {"cash_in": {"orangutan": "OU01"}},
        {"cash_in": {"orangutan": "OU05"}},
    ]
    assert bot.choose(
        BotContext(seat=0, view=view, legal_moves=moves, memory={}, options={}, rng=rng)
    ).move == {"cash_in": {"orangutan": "OU05"}}
    # take the card that completes a requirement, never a deforestation card if avoidable
    moves = [{"take": "X10"}, {"take": "R9"}, {"take": "Y3"}]
    assert bot.choose(
        BotContext(seat=0, view=view, legal_moves=moves, memory={}, options={}, rng=rng)
    ).move == {"take": "Y3"}
    assert take_gain(["Y2"], "X10", layout) < take_gain(["Y2"], "R9", layout)
    assert reach(["Y2", "Y3"], layout) == 7
    # a useful card on the table: play high; nothing useful: play low, deforestation first
    moves = [{"play": "R2"}, {"play": "X2"}, {"play": "B10"}]
    assert bot.choose(
        BotContext(seat=0, view=view, legal_moves=moves, memory={}, options={}, rng=rng)
    ).move == {"play": "B10"}
    view["trick"] = [{"seat": 1, "card": "X7", "taken_by": None}]
    assert bot.choose(
        BotContext(seat=0, view=view, legal_moves=moves, memory={}, options={}, rng=rng)
    ).move == {"play": "X2"}
