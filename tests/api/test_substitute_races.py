"""Taking a seat over racing another taker, and the deadline sweep, from real threads on the
real PostgreSQL: the match lock orders them, so each race resolves one way, nothing lost or
doubled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import User
from games.models import Match, MatchEvent, Move, Seat, SeatOffer, SeatTenure
from games.services.deadlines import step_expire
from tests.api.test_concurrency import Answer, race, together
from tests.api.test_proposal_races import _client
from tests.clocks import overdue
from tests.players import Player, make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLOW = {"time_control": {"per_step_seconds": 2 * 24 * 3600}, "options": {"num_cards": 5}}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _count(match_id: str, kind: str) -> int:
    return MatchEvent.objects.filter(match_id=match_id, type=kind).count()


def _take(match_id: str, offer: int) -> Callable[[Any], Any]:
    return lambda client: client.post(
        f"/api/v1/matches/{match_id}/substitutes/{offer}/accept", {}, format="json"
    )


def _left_seat(players: list[Player]) -> tuple[str, int]:
    """A correspondence match of three whose last seat resigned and is offered to anyone."""
    alice, _, carol = players
    User.objects.filter(pk__in=[p.user.pk for p in players]).update(auto_vacation=False)
    match_id = start_match("gops", players, **SLOW)
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    offer = alice.post(f"/matches/{match_id}/substitutes", {"seat": 2})
    assert offer.status_code == 201, offer.content
    return match_id, offer.json()["id"]


@pytest.mark.parametrize("attempt", range(2))
def test_two_substitutes_taking_one_seat_at_once_one_wins(attempt: int) -> None:
    match_id, offer = _left_seat([make_player(), make_player(), make_player()])
    dave, erin = make_player(), make_player()
    answers = race([_take(match_id, offer)] * 2, [dave, erin])
    assert sorted(a.status for a in answers) == [200, 409], answers
    lost = next(a for a in answers if a.status == 409)
    assert lost.body["code"] == "seat_offer_closed"
    winner = next(p for p, a in zip([dave, erin], answers, strict=True) if a.status == 200)
    assert Seat.objects.get(match_id=match_id, index=2).user_id == winner.user.pk
    assert SeatOffer.objects.get(pk=offer).taken_by_id == winner.user.pk
    assert _count(match_id, "seat_taken_over") == 1
    assert SeatTenure.objects.filter(match_id=match_id).count() == 2
    assert Move.objects.filter(match_id=match_id, seat=2).count() == 1  # one stand-in move


@pytest.mark.parametrize("attempt", range(2))
def test_a_takeover_racing_the_deadline_sweep_resolves_one_way(attempt: int) -> None:
    alice, bob, carol = make_player(), make_player(), make_player()
    match_id, offer = _left_seat([alice, bob, carol])
    seen = alice.match(match_id)
    assert alice.move(match_id, 1, seen["legal_moves"][0]).status_code == 202
    overdue(match_id)  # bob's clock ran out: the sweep's stand-in moves for him
    dave = make_player()
    taken, expired = together(
        lambda: Answer(_take(match_id, offer)(_client(dave))),
        lambda: step_expire(match_id=match_id, step=1),
    )
    assert taken.status == 200, taken
    assert expired is True  # bob's clock ran out whichever came first
    match = Match.objects.get(pk=match_id)
    assert _count(match_id, "seat_taken_over") == 1 and _count(match_id, "timeout") == 1
    resolved = MatchEvent.objects.filter(match_id=match_id, type="step_resolved")
    assert list(resolved.values_list("step", flat=True)) == [1]
    (start,) = SeatTenure.objects.filter(match_id=match_id, user=dave.user).values_list(
        "from_step", flat=True
    )
    # The takeover first: the stand-in finished step 1 for seat 2, dave plays from step 2.
    # The sweep first: step 2 was open, the stand-in finishes it, dave plays from step 3.
    assert match.step == 2 and start in (2, 3)
    stand_in = Move.objects.filter(match_id=match_id, seat=2).order_by("step")
    assert [m.step for m in stand_in] == list(range(1, start))
    assert {m.source for m in stand_in} == {Move.Source.FORFEIT}
    assert Move.objects.filter(match_id=match_id, seat=1, source=Move.Source.TIMEOUT).count() == 1
    assert Seat.objects.get(match_id=match_id, index=2).user_id == dave.user.pk
