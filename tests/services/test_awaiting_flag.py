"""``Seat.awaiting_move``, the flag ``?awaiting_me`` reads, is kept by the unit of work: after
every change it says what the match row's masks say."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Match, Seat
from tests.players import Player, start_match


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _flags(match_id: str) -> list[bool]:
    return list(
        Seat.objects.filter(match_id=match_id)
        .order_by("index")
        .values_list("awaiting_move", flat=True)
    )


def _expected(match_id: str) -> list[bool]:
    match = Match.objects.get(pk=match_id)
    return [seat.awaited_in(match) for seat in Seat.objects.filter(match=match).order_by("index")]


def test_the_flag_follows_every_change(alice: Player, bob: Player, carol: Player) -> None:
    match_id = start_match("gops", [alice, bob, carol], options={"num_cards": 4})
    assert _flags(match_id) == _expected(match_id) == [True, True, True]
    alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0])
    assert _flags(match_id) == _expected(match_id) == [False, True, True]
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    assert _flags(match_id) == _expected(match_id) == [False, True, False]
    bob.move(match_id, 1, bob.match(match_id)["legal_moves"][0])  # the step resolves
    assert _flags(match_id) == _expected(match_id) == [True, True, False]
    assert alice.post(f"/matches/{match_id}/resign").status_code == 200
    assert _flags(match_id) == _expected(match_id) == [False, False, False]  # over
