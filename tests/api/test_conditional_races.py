"""Conditional moves racing what else may happen to their step, from real threads on the real
PostgreSQL: each race resolves one way, with nothing lost or doubled."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import ConditionalMoves, Move
from games.services.conditional import conditional_moves_play
from tests.api.test_concurrency import together
from tests.players import Player, make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PATH = "/api/v1/matches/{}/conditional-moves"
ROUNDS = 3


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"  # the tests run the job themselves


def _put(player: Player, match_id: str, rules: list[dict[str, Any]]) -> int:
    return int(
        player.client.put(PATH.format(match_id), {"rules": rules}, format="json").status_code
    )


def _rules(match_id: str) -> list[Any]:
    return list(ConditionalMoves.objects.filter(match_id=match_id).values_list("rules", flat=True))


def test_rules_replaced_while_their_job_plays_the_step() -> None:
    for _ in range(ROUNDS):
        _replaced_while_played()


def _replaced_while_played() -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 5}, time_control={"per_step_seconds": 86400}
    )
    first, second = [{"pot": None, "card": 1}], [{"pot": None, "card": 2}]
    assert _put(alice, match_id, first) == 200
    played, status = together(
        lambda: conditional_moves_play(match_id=match_id, step=1),
        lambda: _put(alice, match_id, second),
    )
    assert status == 200
    conditional_moves_play(match_id=match_id, step=1)  # the replacement's own job
    moves = list(Move.objects.filter(match_id=match_id, step=1, seat=0))
    assert len(moves) == 1 and moves[0].source == "conditional"
    if moves[0].payload == {"card": 1}:  # the job first: the replacement stays whole
        assert played == 1 and _rules(match_id) == [second]
    else:  # the replacement first: its rule played and is used up
        assert moves[0].payload == {"card": 2} and _rules(match_id) == []


def test_a_rule_and_a_hand_played_move_for_the_same_step() -> None:
    for _ in range(ROUNDS):
        _rule_against_hand()


def _rule_against_hand() -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 5}, time_control={"per_step_seconds": 86400}
    )
    rule = [{"pot": None, "card": 5}]
    assert _put(alice, match_id, rule) == 200
    played, answer = together(
        lambda: conditional_moves_play(match_id=match_id, step=1),
        lambda: alice.move(match_id, 1, {"card": 3}),
    )
    moves = list(Move.objects.filter(match_id=match_id, step=1, seat=0))
    assert len(moves) == 1
    if answer.status_code == 202:  # the hand first: the rule waits for a later step
        assert played == 0 and moves[0].source == "player" and _rules(match_id) == [rule]
    else:
        assert answer.json()["code"] == "already_submitted"
        assert played == 1 and moves[0].payload == {"card": 5} and _rules(match_id) == []
