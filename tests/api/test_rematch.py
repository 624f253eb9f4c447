"""Rematch: ``POST /matches/{id}/rematch`` by a seated player of a finished match."""

from __future__ import annotations

import pytest

from games import verify
from games.models import Match, MatchEvent
from games.services.bot_seats import bot_moves_play
from tests.api.test_concurrency import race
from tests.players import API, Player, make_player, start_match

GOPS = {"num_cards": 3}


def _finished(players: list[Player], **extra: object) -> str:
    match_id = start_match("gops", players, options=GOPS, **extra)
    assert players[-1].post(f"/matches/{match_id}/resign").status_code == 200
    if len(players) > 2:
        assert players[-2].post(f"/matches/{match_id}/resign").status_code == 200
    assert players[0].match(match_id)["status"] == "finished"
    return match_id


@pytest.mark.django_db
def test_a_rematch_rotates_seats_invites_the_others_and_is_asked_for_once(
    alice: Player, bob: Player, carol: Player
) -> None:
    match_id = _finished([alice, bob, carol], rated=False)
    asked = bob.post(f"/matches/{match_id}/rematch")
    assert asked.status_code == 201, asked.content
    rematch = asked.json()
    assert asked["Location"].endswith(f"/api/v1/matches/{rematch['id']}")
    assert rematch["status"] == "open" and rematch["game"] == "gops"
    assert rematch["options"] == alice.match(match_id)["options"]
    assert rematch["rated"] is False and rematch["rematch"] is None
    # Seats rotated by one: alice (0) → 1, bob (1) → 2, carol (2) → 0; bob asked: accepted.
    seats = [(s["player"], s["accepted"]) for s in rematch["seats"]]
    assert seats == [("carol", False), ("alice", False), ("bob", True)]
    assert rematch["you"] == 2 and rematch["created_by"] == "bob"
    # The finished match names it, and a second request (anyone's) answers the same one.
    assert alice.match(match_id)["rematch"] == rematch["id"]
    again = alice.post(f"/matches/{match_id}/rematch")
    assert again.status_code == 200 and again.json()["id"] == rematch["id"]
    events = alice.events(match_id)["results"]
    assert events[-1]["type"] == "rematch_created"
    assert events[-1]["data"] == {"match": rematch["id"], "seat": 1}
    # The finished match's transcript, with the rematch's event after the finish, verifies.
    report = verify.verify_transcript(alice.get(f"/matches/{match_id}/audit").json())
    assert report.ok, report
    # The invited players accept as for any invitation; the rematch starts.
    for guest in (alice, carol):
        assert guest.post(f"/matches/{rematch['id']}/join").status_code == 200
    assert alice.match(rematch["id"])["status"] == "active"


@pytest.mark.django_db
def test_rematch_keeps_bots_and_refuses_what_is_not_finished(alice: Player, bob: Player) -> None:
    created = alice.create("gops", ["me", {"bot": "random"}], options=GOPS)
    match_id = created.json()["id"]
    assert alice.post(f"/matches/{match_id}/rematch").json()["code"] == "match_not_finished"
    assert bob.post(f"/matches/{match_id}/rematch").json()["code"] == "not_seated"
    assert alice.post(f"/matches/{match_id}/resign").status_code == 200
    assert bob.post(f"/matches/{match_id}/rematch").status_code == 403
    rematch = alice.post(f"/matches/{match_id}/rematch").json()
    # Only the requester is human: the rematch starts at once, the bot one seat on.
    assert [(s["player"], s["bot"]) for s in rematch["seats"]] == [
        (None, "random"),
        ("alice", None),
    ]
    assert rematch["status"] == "active"
    assert bot_moves_play(match_id=rematch["id"], step=1) == 1
    unknown = alice.post("/matches/00000000-0000-0000-0000-000000000000/rematch")
    assert unknown.status_code == 404


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_two_requests_at_once_make_one_rematch() -> None:
    alice, bob = make_player(), make_player()
    match_id = _finished([alice, bob])

    def ask(client: object) -> object:
        return client.post(f"{API}/matches/{match_id}/rematch", {}, format="json")  # type: ignore[attr-defined]

    answers = race([ask, ask], [alice, bob])
    assert sorted(a.status for a in answers) == [200, 201]
    assert answers[0].body["id"] == answers[1].body["id"]
    assert Match.objects.count() == 2
    assert MatchEvent.objects.filter(type="rematch_created").count() == 1
