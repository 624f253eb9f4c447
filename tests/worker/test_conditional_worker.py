"""End to end with a real Celery worker: a seat's conditional moves play by themselves as each
step opens, and the other seat plays by hand until the match ends."""

from __future__ import annotations

import pytest

from games.models import Match, Move
from tests.players import make_player, start_match
from tests.worker.test_bots_and_deadlines import _play_when_asked

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_rules_play_through_the_worker_to_the_end(celery_worker) -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match("hols-der-geier", [alice, bob], time_control={"per_step_seconds": 86400})
    rules = [{"pot": None, "card": card} for card in range(15, 0, -1)]
    answer = alice.client.put(
        f"/api/v1/matches/{match_id}/conditional-moves", {"rules": rules}, format="json"
    )
    assert answer.status_code == 200, answer.content
    final = _play_when_asked(bob, match_id)
    assert final["status"] == "finished"
    moves = Move.objects.filter(match_id=match_id, seat=0)
    assert {move.source for move in moves} == {"conditional", "forced"}
    assert Match.objects.get(pk=match_id).result["reason"] == "completed"
