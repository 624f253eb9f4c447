"""Bots observe the match through the unit of work: after the start and after every resolved
step, each seat a bot plays is shown what that seat may read, and nothing more."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from cardgames.bots.base import BaseBot, BotContext, Decision, Observation
from games.catalog import bots_of
from games.models import Match, Seat
from games.services.bot_seats import bot_moves_play
from games.services.operators import seat_replace_with_bot
from tests.players import Player, play_to_end, start_match

#: table_only is Memory's default; no second turn on a pair, so seats alternate.
MEMORY = {"pairs": 6, "flips_visible_to": "flipper", "another_turn_on_pair": False}


class Recorder(BaseBot):
    """Plays the first legal flip; remembers every event it observes, in order."""

    name = "recorder"

    def choose(self, ctx: BotContext) -> Decision:
        return Decision(ctx.legal_moves[0], dict(ctx.memory))

    def observe(self, obs: Observation) -> dict[str, Any]:
        memory = dict(obs.memory)
        memory["counts"] = [*memory.get("counts", []), len(obs.events)]
        memory["events"] = [*memory.get("events", []), *obs.events]
        memory["grids"] = [*memory.get("grids", []), obs.view["grid"]]
        return memory


@pytest.fixture(autouse=True)
def _recorder(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"
    monkeypatch.setitem(bots_of("memory"), "recorder", Recorder())


def _pairing_flip(match_id: str, legal: list[dict[str, int]]) -> dict[str, int]:
    """A second flip that makes a pair (the test reads the state), else the first legal flip,
    so that the match ends within a few turns."""
    state = Match.objects.get(pk=match_id).state
    if len(state["flipped"]) == 1:
        rank = state["cards"][state["flipped"][0]][0]
        for move in legal:
            if state["cards"][move["flip"]][0] == rank:
                return move
    return legal[0]


def _play(match_id: str, human: Player, after_each: Any = None) -> None:
    """The human makes pairs, the bots play their first legal flip, until the match is over."""
    for _ in range(100):
        seen = human.match(match_id)
        if seen["status"] != "active":
            return
        if seen["legal_moves"]:
            move = _pairing_flip(match_id, seen["legal_moves"])
            assert human.move(match_id, seen["step"], move).status_code == 202
        else:
            assert bot_moves_play(match_id=match_id, step=seen["step"]) == 1
        if after_each:
            after_each()
    raise AssertionError("match did not end")


def test_a_bot_seat_observes_the_start_and_every_step_of_a_table_only_match(alice: Player):
    created = alice.create("memory", ["me", {"bot": "recorder"}], options=MEMORY)
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    _play(match_id, alice)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    memory = Seat.objects.get(match=match, index=1).bot_memory
    steps = match.step - 1
    assert memory["counts"] == [0] + [1] * steps  # the start, then one event per step
    assert [event["step"] for event in memory["events"]] == list(range(1, steps + 1))


def test_what_a_bot_observes_is_what_its_seat_reads_through_the_events(alice: Player, bob: Player):
    match_id = start_match("memory", [alice, bob], options=MEMORY)
    operator = User.objects.create_superuser("op", "op@example.com", "correct-horse-battery")
    seat_replace_with_bot(match_id=match_id, seat=1, operator=operator, reason="t", bot="recorder")
    read: list[dict[str, Any]] = []
    grids: list[tuple[int, Any]] = []
    last = [0]

    def bob_reads() -> None:  # bob, reading his seat's events right after each step
        feed = bob.events(match_id, after=last[0])
        for event in feed["results"]:
            if event["type"] == "step_resolved":
                assert event["data"] is not None
                read.append(event["data"])
        last[0] = feed["last_seq"]
        grids.append((len(read), bob.match(match_id)["view"]["grid"]))

    _play(match_id, alice, after_each=bob_reads)
    memory = Seat.objects.get(match_id=match_id, index=1).bot_memory
    assert memory["events"] == read  # every step, each exactly as the seat may read it
    # and the seat's view after each step (one read may follow two steps: a forced flip)
    assert len(memory["grids"]) == len(read)
    assert all(memory["grids"][steps - 1] == grid for steps, grid in grids)
    hidden = [e for e in read if e["seat"] == 0 and e["card"] is None]
    assert hidden, "alice's flips stay hidden from the bot's seat"


def test_human_seats_are_not_observed(alice: Player, bob: Player):
    match_id = start_match("memory", [alice, bob], options=MEMORY)
    finished = play_to_end(
        match_id, [alice, bob], pick=lambda legal: _pairing_flip(match_id, legal)
    )
    assert finished["status"] == "finished"
    assert all(seat.bot_memory == {} for seat in Seat.objects.filter(match_id=match_id))
