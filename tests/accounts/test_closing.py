"""Closing an account closes what it started (#46): one of everything an account can leave
open, then ``DELETE /accounts/me``, then each piece as the other side sees it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.models import Match, Proposal, Seat, SeatOffer
from live.bus import bus
from social.models import Seek
from tests.players import API, Player, make_player, start_match
from tests.tournaments.driver import tournament
from tournaments.models import Entry, Tournament, TournamentEvent, TournamentMatch
from tournaments.services.entries import player_invite
from tournaments.services.lifecycle import tournament_pause, tournament_start

DAY = 24 * 3600
SLOW = {"time_control": {"per_step_seconds": DAY}}
GOPS = {"game": "gops", "options": {"num_cards": 3}}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _created(answer: Any) -> dict[str, Any]:
    assert answer.status_code in (200, 201), answer.content
    body: dict[str, Any] = answer.json()
    return body


def _last(player: Player) -> str | None:
    bounds = bus().account_bounds(player.user.pk)
    return bounds[1] if bounds else None


def _feed(player: Player, after: dict[int, str | None]) -> list[dict[str, Any]]:
    """What ``player``'s account stream logged since ``after`` was taken."""
    items = bus().account_items(player.user.pk, after[player.user.pk])
    return [json.loads(text) for _, text in items]


def test_closing_an_account_closes_everything_it_left_open(
    db: None, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob, carol, dave, erin = (make_player() for _ in range(5))
    directed = _created(alice.post("/challenges", {**GOPS, "to": bob.name}))["id"]
    open_to_all = _created(alice.post("/challenges", GOPS))["id"]
    incoming = _created(carol.post("/challenges", {**GOPS, "to": alice.name}))["id"]
    bulk = _created(alice.post("/bulk-pairings", {**GOPS, "pairings": [[bob.name, carol.name]]}))
    (bulk_match,) = bulk["matches"]
    invited = _created(bob.create("gops", ["me", {"user": alice.name}], options={"num_cards": 3}))
    # A correspondence match of four: dave resigned; alice offers his seat and proposes a pause.
    table_match = start_match("hols-der-geier", [alice, bob, carol, dave], **SLOW)
    assert dave.post(f"/matches/{table_match}/resign").status_code == 200
    offer = _created(
        alice.post(f"/matches/{table_match}/substitutes", {"seat": 3, "invitee": erin.name})
    )
    proposal = _created(alice.post(f"/matches/{table_match}/proposals", {"kind": "abort"}))
    # A seat offered to alice in another match of four.
    other = start_match("hols-der-geier", [bob, carol, dave, erin], **SLOW)
    assert erin.post(f"/matches/{other}/resign").status_code == 200
    offered = _created(
        bob.post(f"/matches/{other}/substitutes", {"seat": 3, "invitee": alice.name})
    )
    seek = _created(alice.post("/seeks", {**GOPS, "players": 3}))["id"]
    waiting = _created(alice.create("gops", ["me", "open"], options={"num_cards": 3}))["id"]
    entered = tournament(bob.user, [alice.user, carol.user], name="Bob's cup")
    organised = tournament(alice.user, [bob.user, carol.user], name="Alice's cup")
    # An invitation to erin's cup that alice never answered.
    asked = tournament(erin.user, [bob.user], name="Erin's cup")
    player_invite(tournament_id=asked.pk, by=erin.user, username=alice.name)
    # Running ones: alice plays in dave's, and organises another.
    running = tournament(dave.user, [alice.user, erin.user], name="Dave's cup")
    tournament_start(tournament_id=running.pk)
    (table,) = TournamentMatch.objects.filter(round__tournament=running)
    led = tournament(alice.user, [dave.user, erin.user], name="Alice's running cup")
    tournament_start(tournament_id=led.pk)
    held = tournament(alice.user, [bob.user, erin.user], name="Alice's paused cup", **SLOW)
    tournament_start(tournament_id=held.pk)
    tournament_pause(tournament_id=held.pk, by=alice.user)

    before = {p.user.pk: _last(p) for p in (bob, carol)}
    with django_capture_on_commit_callbacks(execute=True):
        closed = alice.client.delete(
            f"{API}/accounts/me", {"password": "correct-horse-battery"}, format="json"
        )
    assert closed.status_code == 204, closed.content

    # Challenges: its own are canceled (the challenged hears), one to it is declined.
    assert bob.get(f"/challenges/{directed}").json()["status"] == "canceled"
    assert carol.get(f"/challenges/{open_to_all}").json()["status"] == "canceled"
    assert carol.get(f"/challenges/{incoming}").json()["status"] == "declined"
    assert open_to_all not in [c["id"] for c in carol.get("/challenges").json()["open"]]
    for taker, challenge in ((bob, directed), (carol, open_to_all)):
        refused = taker.post(f"/challenges/{challenge}/accept")
        assert refused.status_code == 409 and refused.json()["code"] == "challenge_closed"
    told_bob = [(i["type"], i["data"]["id"]) for i in _feed(bob, before)]
    assert ("challenge_canceled", directed) in told_bob
    told_carol = [(i["type"], i["data"]["id"]) for i in _feed(carol, before)]
    assert ("challenge_declined", incoming) in told_carol
    # The bulk pairing it organised and the match it was invited to are aborted.
    assert bob.match(bulk_match)["status"] == "aborted"
    seen = bob.match(invited["id"])
    assert seen["status"] == "aborted"
    # The seat offer and the proposal it made are withdrawn; the match goes on without it.
    assert SeatOffer.objects.get(pk=offer["id"]).status == SeatOffer.Status.WITHDRAWN
    assert Proposal.objects.get(pk=proposal["id"]).status == Proposal.Status.WITHDRAWN
    after = bob.match(table_match)
    assert after["status"] == "active" and after["seats"][0]["forfeited"] is True
    assert Match.objects.get(pk=table_match).status == Match.Status.ACTIVE
    assert SeatOffer.objects.get(pk=offered["id"]).status == SeatOffer.Status.DECLINED
    # Its seek is cancelled and its own match waiting for a player aborted.
    assert Seek.objects.get(pk=seek).status == Seek.Status.CANCELLED
    assert bob.match(waiting)["status"] == "aborted"
    # Tournaments: it left the one it entered; the one it organised is cancelled, and told.
    entry = Entry.objects.get(tournament=entered, user=alice.user)
    assert entry.status == Entry.Status.WITHDRAWN and entry.joined is False
    assert Tournament.objects.get(pk=organised.pk).status == Tournament.Status.CANCELLED
    # The invitation it never answered is declined: the organiser sees it in the log.
    assert not Entry.objects.filter(tournament=asked, user=alice.user).exists()
    assert TournamentEvent.objects.filter(tournament=asked, type="declined").exists()
    for player in (bob, carol):
        told = [i for i in _feed(player, before) if i["type"] == "tournament_cancelled"]
        assert [i["data"]["id"] for i in told] == [str(organised.pk)]
    # The running tournament it entered: withdrawn, its match goes on with the stand-in bot.
    left = Entry.objects.get(tournament=running, user=alice.user)
    assert left.status == Entry.Status.WITHDRAWN
    seat = Seat.objects.get(match_id=table.match_id, user=alice.user)
    assert (seat.controlled_by, seat.forfeited) == (Seat.Controller.BOT, False)
    assert Match.objects.get(pk=table.match_id).status == Match.Status.ACTIVE
    # The running tournament it organises runs on by itself; a paused one resumes (nobody
    # else would resume it).
    assert Tournament.objects.get(pk=led.pk).status == Tournament.Status.RUNNING
    assert Tournament.objects.get(pk=held.pk).status == Tournament.Status.RUNNING
