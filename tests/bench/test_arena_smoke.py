"""Smoke test of the arena (bench/arena.py): a small fixed-seed run over the pure engine."""

from __future__ import annotations

from typing import Any

import pytest

from bench import arena
from cardgames.bots.base import BaseBot, BotContext, Decision, Observation


class Watcher(BaseBot):
    """Counts what it observes; its memory must come back as JSON (a tuple as a list)."""

    name = "watcher"

    def choose(self, ctx: BotContext) -> Decision:
        assert isinstance(ctx.memory["trail"], list)
        move = ctx.rng.choice(ctx.legal_moves)
        return Decision(move, {**ctx.memory, "chosen": int(ctx.memory.get("chosen", 0)) + 1})

    def observe(self, obs: Observation) -> dict[str, Any]:
        seen = int(obs.memory.get("seen", 0)) + 1
        events = int(obs.memory.get("events", 0)) + len(obs.events)
        return {**obs.memory, "seen": seen, "events": events, "trail": (seen, events)}


def test_the_arena_prints_margins_win_rates_and_decision_times(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--game", "gops", "--bots", "counter,greedy", "--players", "2", "--deals", "40"]
    argv += ["--seed", "7", "--options", '{"num_cards": 6}', "--jobs", "2"]
    result = arena.main(argv)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("gops, 2 players, line-up counter,greedy, 40 duplicate deals")
    assert printed[1].split()[:4] == ["bot", "seats", "margin", "95%"]
    assert [line.split()[0] for line in printed[2:]] == ["counter", "greedy"]
    assert result["games"] == 80
    counter, greedy = result["bots"]
    assert counter["margin"] == pytest.approx(-greedy["margin"])
    assert counter["win_rate"] + greedy["win_rate"] == pytest.approx(1)
    for bot in result["bots"]:
        low, high = bot["margin_ci"]
        assert low <= bot["margin"] <= high
        low, high = bot["win_rate_ci"]
        assert low <= bot["win_rate"] <= high
        assert bot["decisions"] == 40 * 2 * 5  # the last of 6 turns is forced
        assert 0 <= bot["choose_ms_median"] <= bot["choose_ms_p99"]
    # jobs change nothing but the clock
    again = arena.summary(
        arena.Config("gops", ("counter", "greedy"), 40, 7, {"num_cards": 6}),
        arena.run(arena.Config("gops", ("counter", "greedy"), 40, 7, {"num_cards": 6}), jobs=1),
    )
    timing = {"choose_ms_median", "choose_ms_p99", "observe_ms_p99"}
    strip = [{k: v for k, v in b.items() if k not in timing} for b in result["bots"]]
    assert strip == [{k: v for k, v in b.items() if k not in timing} for b in again["bots"]]


def test_every_deal_is_replayed_with_the_seats_rotated() -> None:
    lineup = ("greedy", "random", "tests.bench.test_arena_smoke:Watcher")
    config = arena.Config("memory", lineup, deals=3, seed=5, options={"pairs": 6})
    for deal in range(3):
        result = arena.play_deal(config, deal)
        assert [game.rotation for game in result.games] == [0, 1, 2]
        assert len({game.deal_digest for game in result.games}) == 1  # the very same cards
        for seat in range(3):  # each line-up entry in each seat once
            assert sorted(game.seating[seat] for game in result.games) == [0, 1, 2]
        for game in result.games:
            assert sorted(game.seating) == [0, 1, 2]
    digests = {arena.play_deal(config, deal).games[0].deal_digest for deal in range(3)}
    assert len(digests) == 3  # and deals differ


def test_bots_observe_the_start_and_every_resolved_step(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    original = Watcher.observe

    def spy(self: Watcher, obs: Observation) -> dict[str, Any]:
        memory = original(self, obs)
        seen.append(memory)
        return memory

    monkeypatch.setattr(Watcher, "observe", spy)
    config = arena.Config("memory", ("tests.bench.test_arena_smoke:Watcher",) * 2, 1, 3)
    result = arena.play_deal(config, 0)
    steps = sum(game.steps for game in result.games)
    # two seats observe the start and every step of each of the two rotations
    assert len(seen) == 2 * (steps + 2)
    finals = [m for m in seen if m["seen"] == m["events"] + 1]
    assert len(finals) == len(seen)  # one event per resolved step, none at the start
