"""The protocol's invariants over random legal playouts of every game in the catalogue.

Each playout picks its seat count and options from the engine's schema (every enum value,
integer bounds and the default), moves at random among the legal moves, and checks at every
step: JSON round trips, to_act against legal_moves, timeout moves, that apply leaves its input
alone, that no view carries a value hidden from its reader (a view is unchanged when everything
hidden from that reader is redrawn), that scores match the prizes taken and the public history,
and at the end that the outcome is consistent, with and without forfeited seats. What differs
per game (playouts, step bounds, option grids, score invariants) comes from its record's
``ConformanceHints``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from cardgames.bots.base import concrete
from cardgames.engines.protocol import Engine, IllegalMove, InvalidOptions, Outcome, State
from cardgames.engines.rng import DealRng
from games.catalog import GAMES
from games.catalog.record import ConformanceHints
from tests.scale import scaled

CHUNKS = 4  # playouts run in chunks so that pytest-xdist can spread them
MAX_STEPS = 500


def hints(engine: Engine) -> ConformanceHints:
    return GAMES[engine.slug].conformance


def option_choices(schema: dict[str, Any]) -> dict[str, list[Any]]:
    choices: dict[str, list[Any]] = {}
    for name, prop in schema["properties"].items():
        if "enum" in prop:
            values = list(prop["enum"])
        elif prop.get("type") == "integer":
            values = sorted({prop["minimum"], prop["default"], prop["maximum"]})
        elif prop.get("type") in (["boolean", "null"], ["null", "boolean"]):
            values = [None, True, False]
        elif prop.get("type") == "boolean":
            values = [True, False]
        else:
            values = [prop["default"]]
        choices[name] = values
    return choices


def random_setup(engine: Engine, chooser: random.Random) -> tuple[int, dict[str, Any]]:
    choices = option_choices(engine.options_schema) | {
        name: list(values) for name, values in hints(engine).option_choices.items()
    }
    while True:
        players = chooser.randint(engine.min_players, engine.max_players)
        options = {name: chooser.choice(values) for name, values in choices.items()}
        try:
            return players, engine.validate_options(options, players)
        except InvalidOptions:
            continue


def deal_rng(number: int, players: int) -> DealRng:
    seed = random.Random(number).randbytes(32)
    clients = [f"seat{seat}-{number}" if seat % 2 == 0 else None for seat in range(players)]
    return DealRng(seed, f"00000000-0000-0000-0000-{number:012d}", clients)


def roundtrip(value: Any) -> None:
    assert json.loads(json.dumps(value)) == value


@dataclass
class Tally:
    shuffles: int = 0
    changed: int = 0
    outcomes: list[Outcome] = field(default_factory=list)


def check_views(engine: Engine, state: State, shuffler: DealRng, tally: Tally) -> None:
    players: int = state["players"]
    for seat in [None, *range(players)]:
        view = engine.view(state, seat)
        roundtrip(view)
        hidden = engine.shuffle_hidden(state, seat, shuffler)
        assert engine.view(hidden, seat) == view, f"view of seat {seat} shows hidden values"
        tally.shuffles += 1
        tally.changed += hidden != state
        if hints(engine).sealed_bid_view:
            for key in ("pot", "remaining_prizes", "history", "scores"):
                assert key in view
            assert view["remaining_prizes"] == sorted(view["remaining_prizes"])
            assert view["scores"] == engine.scores(state)
            if seat is None:
                assert "hand" not in view
            else:
                assert view["hand"] == sorted(view["hand"])
                assert [{"card": c} for c in view["hand"]] == engine.legal_moves(state, seat)
            if view.get("history_mode") == "table_only":
                assert view["history"] == []


def check_outcome(engine: Engine, state: State, chooser: random.Random, tally: Tally) -> None:
    players: int = state["players"]
    subsets = [frozenset[int]()]
    subsets.append(frozenset(s for s in range(players) if chooser.random() < 0.4))
    for forfeited in subsets:
        outcome = engine.outcome(state, forfeited)
        assert outcome is not None
        tally.outcomes.append(outcome)
        assert list(outcome.scores) == engine.scores(state)
        assert set(outcome.winners) <= set(range(players)) - forfeited
        flat = [seat for group in outcome.ranking for seat in group]
        assert sorted(flat) == list(range(players))
        assert all(group for group in outcome.ranking)
        if forfeited:
            assert set(flat[-len(forfeited) :]) == forfeited
            assert set(outcome.ranking[-1]) == forfeited
        if outcome.winners:
            assert outcome.ranking[0] == tuple(sorted(outcome.winners))
        roundtrip([list(outcome.scores), list(outcome.winners), [list(g) for g in outcome.ranking]])


def playout(engine: Engine, number: int, tally: Tally) -> tuple[State, list[dict[int, Any]]]:
    chooser = random.Random(number)
    players, options = random_setup(engine, chooser)
    state = engine.initial_state(players, options, deal_rng(number, players))
    assert state == engine.initial_state(players, options, deal_rng(number, players))
    shuffler = deal_rng(number + 10**6, players)
    transcript: list[dict[int, Any]] = []
    step_bound, prizes_taken = hints(engine).step_bound, hints(engine).prizes_taken
    bound = step_bound(state) if step_bound else MAX_STEPS
    while True:
        roundtrip(state)
        assert state["step"] == len(transcript) + 1
        check_views(engine, state, shuffler, tally)
        if prizes_taken:
            assert engine.scores(state) == prizes_taken(state)
        to_act = engine.to_act(state)
        if to_act is None:
            break
        assert engine.outcome(state) is None
        assert to_act.seats
        moves: dict[int, Any] = {}
        for seat in range(players):
            legal = engine.legal_moves(state, seat)
            roundtrip(legal)
            if seat not in to_act.seats:
                assert legal == []
                continue
            assert legal, f"seat {seat} must act but has no legal move"
            for move in legal:  # a choose-k template is legal once made concrete
                engine.check_move(state, seat, concrete(move, chooser))
            engine.check_move(state, seat, engine.timeout_move(state, seat))
            moves[seat] = concrete(chooser.choice(legal), chooser)
        if not to_act.simultaneous:
            assert len(to_act.seats) == 1
        before = json.loads(json.dumps(state))
        resolution = engine.apply(state, moves)
        assert state == before, "apply mutated its input"
        roundtrip(resolution.public)
        roundtrip({str(seat): data for seat, data in resolution.private.items()})
        transcript.append(moves)
        state = resolution.state
        assert len(transcript) <= bound, "the game did not end in time"
    for seat in range(players):
        assert engine.legal_moves(state, seat) == []
        with pytest.raises(IllegalMove):
            engine.check_move(state, seat, {"card": 1})
    check_outcome(engine, state, chooser, tally)
    if engine.history_mode(state["options"]) == "full" and hints(engine).sealed_bid_view:
        replayed = [0] * players
        for entry in engine.view(state, None)["history"]:
            if entry["winner"] is not None:
                replayed[entry["winner"]] += sum(entry["pot"])
        assert replayed == engine.scores(state)
    return state, transcript


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("slug", sorted(GAMES))
def test_random_playouts(slug: str, chunk: int) -> None:
    engine = GAMES[slug].engine
    tally = Tally()
    for number in range(chunk, scaled(hints(engine).playouts), CHUNKS):
        playout(engine, number, tally)
    # Hidden information is genuinely redrawn most of the time.
    assert tally.changed > tally.shuffles // hints(engine).redrawn_one_in
    # Playouts end in decided games as well as shared wins or draws.
    assert any(len(outcome.winners) == 1 for outcome in tally.outcomes)


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_same_seed_and_entropy_give_the_same_game(slug: str) -> None:
    engine = GAMES[slug].engine
    for number in range(5):
        first, transcript = playout(engine, number, Tally())
        chooser = random.Random(number)
        players, options = random_setup(engine, chooser)
        state = engine.initial_state(players, options, deal_rng(number, players))
        for moves in transcript:
            state = engine.apply(state, moves).state
        assert state == first


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_metadata(slug: str) -> None:
    engine = GAMES[slug].engine
    assert engine.slug == slug
    assert engine.name
    assert 1 <= engine.min_players <= engine.max_players
    assert engine.rules_version
    schema = engine.options_schema
    assert schema["additionalProperties"] is False
    for prop in schema["properties"].values():
        assert "default" in prop
    defaults = {name: prop["default"] for name, prop in schema["properties"].items()}
    assert engine.validate_options({}, engine.min_players) == defaults
    assert engine.history_mode(defaults) in ("full", "table_only")
    with pytest.raises(InvalidOptions) as caught:
        engine.validate_options({}, engine.max_players + 1)
    assert "seats" in caught.value.errors
