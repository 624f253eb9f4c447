"""Xato bots: legal moves over whole games, the greedy bot's memory (JSON, only what its seat
saw, forgetfulness) and that greedy beats random."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from cardgames.bots.base import BotContext
from cardgames.engines.protocol import State
from cardgames.engines.rng import DealRng
from cardgames.engines.xato import ENGINE
from games.catalog import bots_of

XATO_BOTS = bots_of("xato")
RANDOM = XATO_BOTS["random"]
GREEDY = XATO_BOTS["greedy"]


@dataclass
class Game:
    state: State
    memories: list[dict[str, Any]]
    snapshots: list[list[tuple[State, dict[str, Any]]]] = field(default_factory=list)
    outcomes: list[dict[str, int]] = field(default_factory=list)


def play(
    seats: list[tuple[Any, dict[str, Any]]],
    options: dict[str, Any],
    seed: int,
    *,
    keep: bool = False,
) -> Game:
    """Play one game with a bot in every seat; every move is checked by the engine."""
    players = len(seats)
    deal = DealRng(random.Random(seed).randbytes(32), f"bots-{seed}", [None] * players)
    state = ENGINE.initial_state(players, options, deal)
    game = Game(state, [{} for _ in range(players)])
    game.snapshots = [[] for _ in range(players)]
    game.outcomes = [{} for _ in range(players)]
    rngs = [random.Random(seed * 100 + seat) for seat in range(players)]
    while (to_act := ENGINE.to_act(state)) is not None:
        moves = {}
        for seat in to_act.seats:
            bot, bot_options = seats[seat]
            decision = bot.choose(
                BotContext(
                    seat=seat,
                    view=ENGINE.view(state, seat),
                    legal_moves=ENGINE.legal_moves(state, seat),
                    memory=game.memories[seat],
                    options=bot_options,
                    rng=rngs[seat],
                )
            )
            ENGINE.check_move(state, seat, decision.move)
            assert json.loads(json.dumps(decision.memory)) == decision.memory
            game.memories[seat] = decision.memory
            if keep:
                game.snapshots[seat].append((state, decision.memory))
            moves[seat] = decision.move
        resolution = ENGINE.apply(state, moves)
        public = resolution.public
        if public.get("outcome"):
            tally = game.outcomes[public["seat"]]
            tally[public["outcome"]] = tally.get(public["outcome"], 0) + 1
        state = resolution.state
    game.state = state
    return game


def random_setup(seed: int) -> tuple[int, dict[str, Any]]:
    chooser = random.Random(seed)
    players = chooser.randint(3, 6)
    return players, {
        "life_cards": chooser.randint(1, 5),
        "turn_direction": chooser.choice(["clockwise", "counterclockwise"]),
        "strict_memory": chooser.random() < 0.5,
        "history": chooser.choice(["full", "table_only"]),
        "max_calls": chooser.choice([20, 60, None]),
        "deals": chooser.choice([1, 1, 2]),
    }


@pytest.mark.parametrize("seed", range(12))
def test_bots_always_make_legal_moves(seed: int) -> None:
    players, options = random_setup(seed)
    chooser = random.Random(seed + 1000)
    seats = [
        chooser.choice([(RANDOM, {}), (GREEDY, {}), (GREEDY, {"forgetfulness": chooser.random()})])
        for _ in range(players)
    ]
    game = play(seats, options, seed)
    assert game.state["over"]
    assert ENGINE.outcome(game.state) is not None


def truth(state: State, card: str) -> tuple[str, int | None]:
    for seat in range(state["players"]):
        if card in state["hands"][seat]:
            return "hand", seat
        if card in state["life"][seat]:
            return "life", seat
    return "table", None


@pytest.mark.parametrize("history", ["full", "table_only"])
def test_greedy_memory_holds_only_what_its_seat_saw(history: str) -> None:
    options = {"history": history, "max_calls": 40, "strict_memory": True}
    game = play([(GREEDY, {})] * 4, options, seed=7, keep=True)
    for seat in range(4):
        gone_before: set[str] = set()
        for state, memory in game.snapshots[seat]:
            assert set(memory) == {"deal", "cursor", "owners", "gone", "life", "pool"}
            if state["phase"] == "hunt":
                # Facts are true: gone cards lie on the table, owners hold their cards.
                for card in memory["gone"]:
                    assert truth(state, card)[0] == "table"
                for card, owners in memory["owners"].items():
                    place, holder = truth(state, card)
                    assert place == "table" or holder in owners
                    assert seat not in owners
                    if history == "table_only":
                        # It never saw who took what, only what left the pool.
                        assert owners == [s for s in range(4) if s != seat]
                    else:
                        assert len(owners) == 1
                assert set(memory["life"]) <= set(state["life"][seat]) | set(state["discard"])
                # Cards on the table stay noted once seen (nothing is forgotten at 0).
                assert gone_before <= set(memory["gone"])
                gone_before = set(memory["gone"])
        hunts = [memory for state, memory in game.snapshots[seat] if state["phase"] == "hunt"]
        assert hunts
        if history == "full":
            # It read the whole public draft: every card the others took.
            first = hunts[0]
            taken = {
                entry["card"]
                for entry in game.state["history"]
                if entry["kind"] == "take" and entry["seat"] != seat
            }
            assert set(first["owners"]) | set(first["gone"]) >= taken - set(first["gone"])
            assert len(first["owners"]) == 39 - len(set(first["gone"]) & taken)
            assert first["cursor"] > 52


def memory_size(memory: dict[str, Any]) -> int:
    return len(memory.get("owners", {})) + len(memory.get("gone", [])) + len(memory["life"])


def test_forgetfulness_drops_memory() -> None:
    sizes = {}
    for forget in (0.0, 0.5, 1.0):
        total = 0
        for seed in range(3):
            seats = [(GREEDY, {"forgetfulness": forget}), (RANDOM, {}), (RANDOM, {}), (RANDOM, {})]
            game = play(seats, {"max_calls": 8}, seed)
            total += memory_size(game.memories[0])
            if forget == 1.0:
                assert game.memories[0]["owners"] == {}
                assert game.memories[0]["gone"] == [] and game.memories[0]["life"] == []
        sizes[forget] = total
    assert sizes[0.0] > sizes[0.5] > sizes[1.0] == 0


def test_claims_follow_memory() -> None:
    # A perfect memory claims exactly its own life cards under strict_memory.
    seats = [(GREEDY, {})] * 3
    game = play(seats, {"strict_memory": True, "max_calls": 60, "history": "table_only"}, 3)
    claims = [e for e in game.state["history"] if e["kind"] == "claim"]
    assert claims
    for event in claims:
        assert all(penalty == 0 for penalty in event["penalties"])


@pytest.mark.parametrize("history", ["full", "table_only"])
def test_greedy_beats_random(history: str) -> None:
    greedy_total = random_total = greedy_hits = random_hits = 0
    for seed in range(6):
        seats = [(GREEDY, {}), (RANDOM, {})] * 2
        game = play(seats, {"history": history, "max_calls": 60}, seed)
        scores = ENGINE.scores(game.state)
        greedy_total += scores[0] + scores[2]
        random_total += scores[1] + scores[3]
        for seat in (0, 2):
            greedy_hits += game.outcomes[seat].get("hit", 0) + game.outcomes[seat].get("kill", 0)
        for seat in (1, 3):
            random_hits += game.outcomes[seat].get("hit", 0) + game.outcomes[seat].get("kill", 0)
    assert greedy_total > random_total
    if history == "full":
        assert greedy_hits > 2 * random_hits
    else:  # it never saw who took which card: only what left the pool between its picks
        assert greedy_hits > random_hits


def test_random_bot_expands_the_life_template() -> None:
    state = ENGINE.initial_state(4, {"life_cards": 4}, DealRng(bytes(32), "x", [None] * 4))
    while state["phase"] == "draft":
        seat = state["current"]
        state = ENGINE.apply(state, {seat: ENGINE.timeout_move(state, seat)}).state
    rng = random.Random(1)
    for seat in range(4):
        decision = RANDOM.choose(
            BotContext(
                seat=seat,
                view=ENGINE.view(state, seat),
                legal_moves=ENGINE.legal_moves(state, seat),
                memory={},
                options={},
                rng=rng,
            )
        )
        assert len(decision.move["life"]) == 4
        ENGINE.check_move(state, seat, decision.move)


def test_bot_metadata() -> None:
    assert set(XATO_BOTS) == {"random", "greedy", "expert"}
    assert GREEDY.options_schema["properties"]["forgetfulness"]["default"] == 0
    for bot in XATO_BOTS.values():
        assert bot.name in XATO_BOTS
        for prop in bot.options_schema["properties"].values():
            assert "default" in prop
