"""Memory expert: always legal, deterministic given its rng, perfect memory through observe
(also under ``table_only``), the turn values of the two-flip game, and a bounded strength
check against ``greedy``."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from cardgames.bots.base import Bot, BotContext
from cardgames.bots.memory import ExpertMemoryBot, position_value, second_flip_values, turn_values
from cardgames.bots.observe import observation_for
from cardgames.engines.memory import ENGINE
from cardgames.engines.rng import DealRng
from games.catalog import bots_of


def deal_rng(number: int, players: int) -> DealRng:
    seed = random.Random(number).randbytes(32)
    return DealRng(seed, f"00000000-0000-0000-0000-{number:012d}", [None] * players)


def play(number: int, names: list[str], options: dict[str, Any]) -> tuple[list[int], Any]:
    """A whole game fed as the server feeds bots; the scores and the last memories."""
    players = len(names)
    bots: list[Bot] = [bots_of("memory")[name] for name in names]
    state: Any = ENGINE.initial_state(players, options, deal_rng(number, players))
    memories: list[dict[str, Any]] = [{} for _ in names]
    rngs = [random.Random(number * 10 + seat) for seat in range(players)]
    resolution = None
    while True:
        for seat, bot in enumerate(bots):
            observation = observation_for(ENGINE, state, seat, resolution, memories[seat], {})
            memories[seat] = json.loads(json.dumps(bot.observe(observation)))
        if (acting := ENGINE.to_act(state)) is None:
            return ENGINE.scores(state), memories
        seat = acting.seats[0]
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
        memories[seat] = json.loads(json.dumps(decision.memory))
        resolution = ENGINE.apply(state, {seat: decision.move})
        state = resolution.state
        assert state["step"] < 3000


@pytest.mark.parametrize(
    "options",
    [
        {"pairs": 8},
        {"pairs": 8, "history": "full"},
        {"pairs": 8, "flips_visible_to": "flipper"},
        {"pairs": 15, "another_turn_on_pair": False},
    ],
)
def test_expert_always_moves_legally_and_the_game_ends(options: dict[str, Any]) -> None:
    for number in range(4):
        players = 2 + number
        names = ["expert", "expert"] + ["greedy"] * (players - 2)
        scores, _ = play(number, names, options)
        assert sum(scores) == options["pairs"]


def test_expert_notices_private_flips_and_no_extra_turn() -> None:
    _, memories = play(1, ["expert", "greedy"], {"pairs": 8, "flips_visible_to": "flipper"})
    assert memories[0]["private"] is True
    _, memories = play(1, ["expert", "greedy"], {"pairs": 8, "another_turn_on_pair": False})
    assert memories[0]["again"] is False


def test_expert_remembers_its_own_second_flip_under_table_only() -> None:
    state: Any = ENGINE.initial_state(2, {"pairs": 6}, deal_rng(2, 2))
    seat = state["turn"]
    bot = ExpertMemoryBot()
    memory = bot.observe(observation_for(ENGINE, state, seat, None, {}, {}))
    cards = state["cards"]
    first = 0
    second = next(p for p in range(1, 12) if cards[p][0] != cards[0][0])
    for position in (first, second):
        resolution = ENGINE.apply(state, {seat: {"flip": position}})
        state = resolution.state
        memory = bot.observe(observation_for(ENGINE, state, seat, resolution, memory, {}))
    other = 1 - seat
    resolution = ENGINE.apply(state, {other: {"flip": 11 if second != 11 else 10}})
    state = resolution.state
    memory = bot.observe(observation_for(ENGINE, state, seat, resolution, memory, {}))
    assert ENGINE.view(state, seat)["grid"][second] is None  # turned face down
    assert memory["known"][str(second)] == cards[second]
    assert memory["known"][str(first)] == cards[first]


def test_turn_values() -> None:
    assert position_value(1, 0, True, True) == 1.0
    # Two unseen pairs: 1/3 the second flip matches (and the last pair follows), else the
    # other seat takes both: 1/3 * 2 - 2/3 * 2.
    assert position_value(2, 0, True, True) == pytest.approx(-2 / 3)
    # With several singles known, a known non-matching second flip beats a second unseen one.
    values = second_flip_values(4, 4, True)
    assert values["1"] > values["2"]
    assert "0" in turn_values(3, 2, True, True)
    assert "0" not in turn_values(3, 2, False, True)


def test_expert_is_deterministic_given_its_rng() -> None:
    state: Any = ENGINE.initial_state(2, {"pairs": 10}, deal_rng(5, 2))
    seat = state["turn"]

    def decide(seed: int) -> Any:
        return ExpertMemoryBot().choose(
            BotContext(
                seat=seat,
                view=ENGINE.view(state, seat),
                legal_moves=ENGINE.legal_moves(state, seat),
                memory={"known": {"3": "AS"}},
                options={},
                rng=random.Random(seed),
            )
        )

    assert decide(4) == decide(4)


def test_expert_beats_greedy() -> None:
    """Bounded: 2 players, 12 pairs, seats swapped every deal, under both history modes."""
    for history in ("table_only", "full"):
        margin = 0
        for number in range(20):
            names = ["expert", "greedy"] if number % 2 == 0 else ["greedy", "expert"]
            scores, _ = play(number // 2, names, {"pairs": 12, "history": history})
            me = names.index("expert")
            margin += scores[me] - scores[1 - me]
        assert margin > 0, history
