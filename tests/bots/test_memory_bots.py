"""Memory bots: always legal, memory is JSON, greedy beats random, forgetting costs it."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest

from cardgames.bots.base import Bot, BotContext
from cardgames.bots.memory import GreedyMemoryBot, remember
from cardgames.engines.memory import ENGINE
from cardgames.engines.protocol import State
from cardgames.engines.rng import DealRng
from games.catalog import bots_of


def deal_rng(number: int, players: int) -> DealRng:
    seed = random.Random(number).randbytes(32)
    return DealRng(seed, f"00000000-0000-0000-0000-{number:012d}", [None] * players)


def play(
    number: int,
    names: list[str],
    options: Mapping[str, Any],
    bot_options: list[dict[str, Any]] | None = None,
) -> State:
    """A whole game between bots, checking every move and every memory on the way."""
    players = len(names)
    bot_options = bot_options or [{} for _ in names]
    state = ENGINE.initial_state(players, options, deal_rng(number, players))
    memories: list[dict[str, Any]] = [{} for _ in names]
    rngs = [random.Random(number * 10 + seat) for seat in range(players)]
    while (acting := ENGINE.to_act(state)) is not None:
        seat = acting.seats[0]
        bot: Bot = bots_of("memory")[names[seat]]
        legal = ENGINE.legal_moves(state, seat)
        decision = bot.choose(
            BotContext(
                seat=seat,
                view=ENGINE.view(state, seat),
                legal_moves=legal,
                memory=memories[seat],
                options=bot_options[seat],
                rng=rngs[seat],
            )
        )
        assert decision.move in legal
        assert json.loads(json.dumps(decision.memory)) == decision.memory
        memories[seat] = decision.memory
        state = ENGINE.apply(state, {seat: decision.move}).state
        assert state["step"] < 3000
    return state


OPTION_SETS: list[dict[str, Any]] = [
    {"pairs": 6},
    {"pairs": 8, "history": "full"},
    {"pairs": 8, "flips_visible_to": "flipper"},
    {"pairs": 7, "flips_visible_to": "flipper", "history": "full", "scoring": "ranks"},
    {"pairs": 6, "another_turn_on_pair": False},
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_bots_always_move_legally(options: dict[str, Any]) -> None:
    for number in range(6):
        players = 2 + number % 5
        chooser = random.Random(number)
        names = [chooser.choice(["random", "greedy"]) for _ in range(players)]
        names[0], names[-1] = "greedy", "random"
        forget = [{"forgetfulness": (seat % 3) / 2} for seat in range(players)]
        bot_options = [forget[s] if names[s] == "greedy" else {} for s in range(players)]
        state = play(number, names, options, bot_options)
        assert ENGINE.outcome(state) is not None


def test_schemas() -> None:
    for bot in bots_of("memory").values():
        jsonschema.Draft202012Validator.check_schema(bot.options_schema)
    prop = GreedyMemoryBot.options_schema["properties"]["forgetfulness"]
    assert prop["default"] == 0
    assert (prop["minimum"], prop["maximum"]) == (0, 1)
    validator = jsonschema.Draft202012Validator(GreedyMemoryBot.options_schema)
    assert validator.is_valid({"forgetfulness": 0.25})
    assert not validator.is_valid({"forgetfulness": 1.5})
    assert set(bots_of("memory")) == {"random", "greedy", "expert"}


def head_to_head(games: int, options: dict[str, Any], forgetfulness: float) -> tuple[int, int]:
    """Total scores of greedy and random over ``games`` two-player games, seats alternating."""
    greedy = other = 0
    for number in range(games):
        names = ["greedy", "random"] if number % 2 == 0 else ["random", "greedy"]
        bot_options = [{"forgetfulness": forgetfulness}, {"forgetfulness": forgetfulness}]
        scores = ENGINE.scores(play(number, names, options, bot_options))
        seat = names.index("greedy")
        greedy += scores[seat]
        other += scores[1 - seat]
    return greedy, other


@pytest.mark.parametrize(
    "options",
    [{"pairs": 10}, {"pairs": 10, "history": "full"}, {"pairs": 10, "flips_visible_to": "flipper"}],
)
def test_greedy_beats_random(options: dict[str, Any]) -> None:
    greedy, other = head_to_head(12, options, 0)
    assert greedy > 2 * other


def test_forgetting_everything_makes_greedy_about_random() -> None:
    sharp, _ = head_to_head(12, {"pairs": 10}, 0)
    blunt, other = head_to_head(12, {"pairs": 10}, 1)
    assert blunt < sharp
    assert blunt < 2 * other


def view_with(grid: list[Any], flipped: list[int] | None = None, **extra: Any) -> dict[str, Any]:
    return {"grid": grid, "flipped": flipped or [], "history": [], **extra}


def test_greedy_remembers_and_takes_a_known_pair() -> None:
    bot = GreedyMemoryBot()
    rng = random.Random(1)
    grid: list[Any] = [None] * 12
    grid[2], grid[7] = "7H", "KC"  # the last miss, still showing
    legal = [{"flip": p} for p in range(12)]
    decision = bot.choose(
        BotContext(seat=0, view=view_with(grid), legal_moves=legal, memory={}, options={}, rng=rng)
    )
    assert decision.memory == {"known": {"2": "7H", "7": "KC"}}
    # Later it flips a 7 elsewhere and knows where the match lies.
    grid = [None] * 12
    grid[5] = "7S"
    legal = [{"flip": p} for p in range(12) if p != 5]
    decision = bot.choose(
        BotContext(
            seat=0,
            view=view_with(grid, [5]),
            legal_moves=legal,
            memory=decision.memory,
            options={},
            rng=rng,
        )
    )
    assert decision.move == {"flip": 2}
    # A known pair among face-down cards is taken at once.
    memory = {"known": {"1": "QD", "9": "QS", "4": "2C"}}
    legal = [{"flip": p} for p in range(12)]
    decision = bot.choose(
        BotContext(
            seat=0,
            view=view_with([None] * 12),
            legal_moves=legal,
            memory=memory,
            options={},
            rng=rng,
        )
    )
    assert decision.move["flip"] in (1, 9)


def test_greedy_second_flip_avoids_known_non_matches() -> None:
    bot = GreedyMemoryBot()
    grid: list[Any] = [None] * 6
    grid[0] = "AS"
    memory = {"known": {"1": "2S", "2": "3S", "3": "4S", "4": "5S"}}
    legal = [{"flip": p} for p in range(1, 6)]
    for seed in range(5):
        decision = bot.choose(
            BotContext(
                seat=0,
                view=view_with(grid, [0]),
                legal_moves=legal,
                memory=memory,
                options={},
                rng=random.Random(seed),
            )
        )
        assert decision.move == {"flip": 5}


def test_taken_positions_are_dropped_and_history_is_read() -> None:
    grid: list[Any] = [None, "taken", "taken", None]
    history = [
        {"step": 1, "seat": 1, "position": 0, "flip": 1, "result": None, "card": "9D"},
        {"step": 2, "seat": 1, "position": 3, "flip": 2, "result": "miss", "card": None},
    ]
    known = remember(
        view_with(grid, history=history), {"known": {"1": "AS", "3": "2H"}}, 0, random.Random(0)
    )
    assert known == {"0": "9D", "3": "2H"}


def test_forgetfulness_shrinks_memory() -> None:
    old = {"known": {str(p): f"{'A23456789TJQK'[p % 13]}S" for p in range(40)}}
    view = view_with([None] * 40)
    assert len(remember(view, old, 0, random.Random(0))) == 40
    assert remember(view, old, 1, random.Random(0)) == {}
    half = [len(remember(view, old, 0.5, random.Random(seed))) for seed in range(20)]
    assert 10 < sum(half) / len(half) < 30
    # What the view shows now is never forgotten.
    grid: list[Any] = [None] * 40
    grid[3] = "4S"
    assert remember(view_with(grid), old, 1, random.Random(0)) == {"3": "4S"}
