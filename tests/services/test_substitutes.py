"""Substitutes for abandoned seats of correspondence matches: offering, taking over, who played
which steps, ratings, and what the substitute and everyone else may see. Through the API, as a
client plays; time is never waited for."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from accounts.services import DELETED_PREFIX
from games.models import Match, MatchEvent, Move, Rating, Seat, SeatOffer, SeatTenure
from games.services.deadlines import step_expire
from games.verify import verify_transcript
from tests.api.test_commit_reveal import Sealer
from tests.clocks import overdue
from tests.players import Player, make_player, play_to_end, start_match

DAY = 24 * 3600
#: Correspondence: a day per step.
SLOW = {"time_control": {"per_step_seconds": DAY}}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _offer(player: Player, match_id: str, **body: Any) -> Any:
    return player.post(f"/matches/{match_id}/substitutes", body)


def _answer(player: Player, match_id: str, offer: int, answer: str) -> Any:
    return player.post(f"/matches/{match_id}/substitutes/{offer}/{answer}")


def _types(match_id: str) -> list[str]:
    return list(
        MatchEvent.objects.filter(match_id=match_id).order_by("seq").values_list("type", flat=True)
    )


def _play_step(players: list[Player], match_id: str) -> None:
    """Every seat still to move in the open step plays its first legal move."""
    for player in players:
        seen = player.match(match_id)
        if seen["status"] == "active" and seen["legal_moves"]:
            answer = player.move(match_id, seen["step"], seen["legal_moves"][0])
            assert answer.status_code == 202, answer.content


def test_a_substitute_plays_a_resigned_seat_of_hols_der_geier_to_the_end(db: None) -> None:
    """The issue's whole story: four play Hols der Geier by correspondence; one resigns mid-match;
    the seat is offered; a substitute takes it over from the next step and plays to the end by
    hand; ratings count for the three who played throughout; the audit tells who played which
    steps; receipts and the transcript verify."""
    alice, bob, carol, dave, erin = (make_player() for _ in range(5))
    table = [alice, bob, carol, dave]
    match_id = start_match("hols-der-geier", table, **SLOW)
    _play_step(table, match_id)
    _play_step(table, match_id)
    # Dave moves in step 3, then resigns: his sealed move stands, the stand-in plays on.
    step = alice.match(match_id)["step"]
    assert step == 3
    seen = dave.match(match_id)
    assert dave.move(match_id, step, seen["legal_moves"][0]).status_code == 202
    assert dave.post(f"/matches/{match_id}/resign").status_code == 200
    _play_step([alice, bob], match_id)  # carol is still to move in step 3
    hand = dave.match(match_id)["view"]["hand"]  # still seated, as the stand-in plays on

    offered = _offer(alice, match_id, seat=3, invitee=erin.name)
    assert offered.status_code == 201, offered.content
    offer = offered.json()
    assert offer["status"] == "open" and offer["invitee"] == erin.name and offer["seat"] == 3
    # Before taking it over erin sees the match as anyone does: no hand.
    assert erin.match(match_id)["you"] is None

    lobby = erin.get("/substitutes").json()["results"]
    assert [o["id"] for o in lobby] == [offer["id"]]
    assert make_player().get("/substitutes").json()["results"] == []  # an invitation, not open

    taken = _answer(erin, match_id, offer["id"], "accept")
    assert taken.status_code == 200, taken.content
    assert taken.json()["status"] == "taken" and taken.json()["taken_by"] == erin.name
    seat = Seat.objects.get(match_id=match_id, index=3)
    assert seat.user_id == erin.user.pk and not seat.forfeited
    # Step 3 is still under way: dave's move stands; erin plays from step 4.
    assert alice.match(match_id)["step"] == 3
    assert Move.objects.get(match_id=match_id, step=3, seat=3).source == Move.Source.PLAYER
    mine = erin.match(match_id)
    assert mine["you"] == 3 and mine["legal_moves"] == []  # she holds the seat's view now
    assert mine["view"]["hand"] == hand
    left = dave.match(match_id)
    assert left["you"] is None and "hand" not in left["view"]  # he reads as anyone now

    _play_step([carol], match_id)  # step 3 resolves
    assert erin.match(match_id)["step"] == 4 and erin.match(match_id)["legal_moves"]
    final = play_to_end(match_id, [alice, bob, carol, erin])
    assert final["status"] == "finished"

    # Erin made every move of seat 3 from step 4 on, by hand.
    sources = set(
        Move.objects.filter(match_id=match_id, seat=3, step__gte=4).values_list("source", flat=True)
    )
    assert sources <= {Move.Source.PLAYER, Move.Source.FORCED}  # the last card plays itself
    finished = MatchEvent.objects.get(match_id=match_id, type="match_finished").data
    assert sorted(change["seat"] for change in finished["ratings"]) == [0, 1, 2]
    assert any(3 in group for group in finished["ranking"])  # the result still ranks the seat
    for who in (dave, erin):
        assert not Rating.objects.filter(user=who.user, played__gt=0).exists()
    for who in (alice, bob, carol):
        assert Rating.objects.get(user=who.user, game="hols-der-geier").rated_matches == 1

    history = alice.get(f"/matches/{match_id}/substitutes").json()
    assert history["tenures"] == [
        {"seat": 3, "player": dave.name, "from_step": 1, "to_step": 3},
        {"seat": 3, "player": erin.name, "from_step": 4, "to_step": None},
    ]
    audit = alice.get(f"/matches/{match_id}/audit")
    assert audit.status_code == 200
    transcript = audit.json()
    takeover = [e for e in transcript["events"] if e["type"] == "seat_taken_over"]
    assert [e["data"] for e in takeover] == [
        {"offer": offer["id"], "seat": 3, "player": erin.name, "from_step": 4}
    ]
    assert transcript["seats"][3]["player"] == erin.name
    assert transcript["tenures"] == history["tenures"]
    report = verify_transcript(transcript)
    assert report.ok, report.problems


def test_the_stand_in_finishes_the_step_under_way_and_the_clock_starts_afresh(db: None) -> None:
    alice, bob, carol, dave = (make_player() for _ in range(4))
    match_id = start_match("hols-der-geier", [alice, bob, carol], **SLOW)
    _play_step([alice, bob, carol], match_id)
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200  # before moving
    offer = _offer(bob, match_id, seat=2).json()  # an open seat
    assert offer["invitee"] is None
    assert [o["id"] for o in make_player().get("/substitutes").json()["results"]] == [offer["id"]]
    before = Match.objects.get(pk=match_id)
    taken = _answer(dave, match_id, offer["id"], "accept")
    assert taken.status_code == 200, taken.content
    after = Match.objects.get(pk=match_id)
    assert after.step == before.step == 2
    stand_in = Move.objects.get(match_id=match_id, step=2, seat=2)
    assert stand_in.source == Move.Source.FORFEIT  # the step under way is the stand-in's
    assert after.submitted_mask >> 2 & 1
    assert after.clocks[2]["bank"] == DAY * 1000 and after.clocks[2]["since"] is None
    assert dave.match(match_id)["legal_moves"] == []
    _play_step([alice, bob], match_id)
    seen = dave.match(match_id)
    assert seen["step"] == 3 and seen["legal_moves"]
    assert Match.objects.get(pk=match_id).clocks[2]["since"] is not None  # hers runs from step 3
    assert make_player().get("/substitutes").json()["results"] == []  # taken: gone from the lobby


def test_who_may_offer_which_seat_and_who_may_take_it(db: None) -> None:
    alice, bob, carol, dave, erin = (make_player() for _ in range(5))
    match_id = start_match("hols-der-geier", [alice, bob, carol], **SLOW)
    assert _offer(alice, match_id, seat=2).json()["code"] == "seat_not_offerable"  # carol plays
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    # Carol left: she is no remaining player, nor the creator.
    assert _offer(carol, match_id, seat=2).json()["code"] == "permission_denied"
    assert not SeatOffer.objects.filter(match_id=match_id).exists()
    assert _offer(dave, match_id, seat=2).json()["code"] == "permission_denied"
    assert _offer(alice, match_id, seat=2, invitee=bob.name).json()["code"] == "played_in_match"
    assert _offer(alice, match_id, seat=2, invitee="nobody-here").json()["code"] == (
        "validation_error"
    )
    offer = _offer(alice, match_id, seat=2, invitee=dave.name).json()
    assert _offer(bob, match_id, seat=2).json()["code"] == "seat_offer_open"
    assert _answer(erin, match_id, offer["id"], "accept").json()["code"] == "permission_denied"
    assert _answer(erin, match_id, offer["id"], "decline").json()["code"] == "permission_denied"
    declined = _answer(dave, match_id, offer["id"], "decline")
    assert declined.json()["status"] == "declined"
    assert _answer(dave, match_id, offer["id"], "accept").json()["code"] == "seat_offer_closed"
    again = _offer(bob, match_id, seat=2).json()
    assert _answer(bob, match_id, again["id"], "withdraw").json()["status"] == "withdrawn"
    third = _offer(bob, match_id, seat=2).json()
    # Nobody plays two seats of one match: not a seated player, nor one who left.
    assert _answer(alice, match_id, third["id"], "accept").json()["code"] == "played_in_match"
    assert _answer(carol, match_id, third["id"], "accept").json()["code"] == "played_in_match"
    assert _answer(erin, match_id, third["id"], "accept").status_code == 200
    assert _answer(dave, match_id, third["id"], "accept").json()["code"] == "seat_offer_closed"
    types = _types(match_id)
    assert types.count("seat_offered") == 3 and types.count("seat_offer_closed") == 2
    assert types[-1] == "seat_taken_over"
    assert SeatTenure.objects.filter(match_id=match_id).count() == 2


def test_only_correspondence_matches_have_substitutes(db: None) -> None:
    alice, bob, carol = (make_player() for _ in range(3))
    fast = start_match(
        "hols-der-geier", [alice, bob, carol], time_control={"per_step_seconds": 3600}
    )
    assert carol.post(f"/matches/{fast}/resign").status_code == 200
    assert _offer(alice, fast, seat=2).json()["code"] == "seat_not_offerable"
    untimed = start_match("hols-der-geier", [alice, bob, carol])
    assert carol.post(f"/matches/{untimed}/resign").status_code == 200
    assert _offer(alice, untimed, seat=2).json()["code"] == "seat_not_offerable"


def test_an_offer_open_when_the_match_ends_reads_closed(db: None) -> None:
    alice, bob, carol = (make_player() for _ in range(3))
    match_id = start_match("hols-der-geier", [alice, bob, carol], **SLOW)
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    offer = _offer(alice, match_id, seat=2).json()
    assert bob.post(f"/matches/{match_id}/resign").status_code == 200  # two left: it ends
    read = alice.get(f"/matches/{match_id}/substitutes").json()
    assert [o["status"] for o in read["offers"]] == ["closed"]
    assert make_player().get("/substitutes").json()["results"] == []
    refused = _answer(make_player(), match_id, offer["id"], "accept")
    assert refused.json()["code"] == "seat_offer_closed"


def test_a_seat_forfeited_by_its_clock_is_taken_over_with_a_fresh_one(db: None) -> None:
    alice, bob, carol, dave = (make_player() for _ in range(4))
    User.objects.filter(pk=carol.user.pk).update(auto_vacation=False)
    bank = {"kind": "fischer", "initial_seconds": 2 * DAY, "increment_seconds": DAY}
    forfeit = {"time_control": {**bank, "max_seconds": 3 * DAY, "on_timeout": "forfeit"}}
    match_id = start_match("hols-der-geier", [alice, bob, carol], **forfeit)
    _play_step([alice, bob], match_id)
    overdue(match_id)
    assert step_expire(match_id=match_id, step=1)
    assert Seat.objects.get(match_id=match_id, index=2).forfeited  # timed out: forfeited
    # Its bank ran out (then had the step's increment); the substitute's starts afresh at the
    # time control's start.
    assert Match.objects.get(pk=match_id).clocks[2]["bank"] == DAY * 1000
    offer = _offer(bob, match_id, seat=2, invitee=dave.name).json()
    assert _answer(dave, match_id, offer["id"], "accept").status_code == 200
    clock = Match.objects.get(pk=match_id).clocks[2]
    assert clock["bank"] == 2 * DAY * 1000 and clock["out"] is False
    _play_step([alice, bob], match_id)
    assert dave.match(match_id)["legal_moves"]  # step 3 waits for him
    assert Match.objects.get(pk=match_id).clocks[2]["since"] is not None


def test_a_commitment_left_behind_is_filled_by_the_stand_in(db: None) -> None:
    """Commit-reveal: the leaver committed, then resigned; nobody could reveal that move, so the
    stand-in fills it at the takeover, and the substitute never meets the reveal."""
    alice, bob, carol, dave = (make_player() for _ in range(4))
    match_id = start_match("gops", [alice, bob, carol], protocol="commit-reveal", **SLOW)
    sealers = {p.name: Sealer(p, match_id) for p in (alice, bob, carol)}
    assert sealers[carol.name].commit(1, {"card": 1}, seat=2).status_code == 202
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    offer = _offer(alice, match_id, seat=2).json()
    assert _answer(dave, match_id, offer["id"], "accept").status_code == 200
    row = Move.objects.get(match_id=match_id, step=1, seat=2)
    assert row.source == Move.Source.FORFEIT and row.payload is not None and row.commitment
    for player, seat, card in ((alice, 0, 2), (bob, 1, 3)):
        assert sealers[player.name].commit(1, {"card": card}, seat=seat).status_code == 202
    assert Match.objects.get(pk=match_id).phase_kind == Match.PhaseKind.REVEAL
    # During the reveal nobody takes a seat over: the seats' moves must stay as committed.
    assert bob.post(f"/matches/{match_id}/resign").status_code == 200
    during = _offer(alice, match_id, seat=1).json()
    refused = _answer(make_player(), match_id, during["id"], "accept")
    assert refused.json()["code"] == "wrong_phase"
    assert sealers[alice.name].reveal(1).status_code == 202
    assert Match.objects.get(pk=match_id).step == 2
    assert dave.match(match_id)["legal_moves"]


def test_nobody_learns_anything_new_from_an_offer_or_a_takeover(db: None) -> None:
    """Sealed and undisclosed: Alice has moved. Offering carol's seat and Dave taking it over
    tell Bob and a spectator nothing of Alice's move, nor of the seat's hand; the events carry
    public data only; the leaver stops reading the seat's private parts, the substitute starts."""
    alice, bob, carol, dave, watcher = (make_player() for _ in range(5))
    match_id = start_match("gops", [alice, bob, carol], disclose_submitted=False, **SLOW)
    assert alice.move(match_id, 1, {"card": 3}).status_code == 202
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200

    def seen(player: Player) -> dict[str, Any]:
        read = player.match(match_id)
        return {key: read[key] for key in ("view", "phase", "legal_moves")} | {
            "clocks": [c for i, c in enumerate(read["clocks"]) if i != 2],
        }

    before = {p.name: seen(p) for p in (bob, watcher)}
    offer = _offer(bob, match_id, seat=2, invitee=dave.name).json()
    assert _answer(dave, match_id, offer["id"], "accept").status_code == 200
    assert {p.name: seen(p) for p in (bob, watcher)} == before
    new = [
        e
        for e in watcher.events(match_id)["results"]
        if e["type"] in ("seat_offered", "seat_taken_over")
    ]
    assert [sorted(e["data"]) for e in new] == [
        ["invitee", "offer", "seat"],
        ["from_step", "offer", "player", "seat"],
    ]
    stored = MatchEvent.objects.filter(match_id=match_id, type__startswith="seat_")
    assert all(not row.private for row in stored)
    assert dave.match(match_id)["view"]["hand"]  # the seat's hand, now his
    assert "hand" not in carol.match(match_id)["view"]


def test_a_closed_account_leaves_the_history_of_the_seats_it_left_or_was_offered(
    db: None,
) -> None:
    alice, bob, carol, dave, erin = (make_player() for _ in range(5))
    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    declined = _offer(alice, match_id, seat=2, invitee=erin.name).json()
    assert _answer(erin, match_id, declined["id"], "decline").status_code == 200
    offer = _offer(alice, match_id, seat=2).json()
    assert _answer(dave, match_id, offer["id"], "accept").status_code == 200
    for player in (carol, erin):
        gone = player.client.delete(
            "/api/v1/accounts/me", {"password": "correct-horse-battery"}, format="json"
        )
        assert gone.status_code == 204, gone.content
    names = str(list(MatchEvent.objects.filter(match_id=match_id).values_list("data", flat=True)))
    assert carol.name not in names and erin.name not in names
    assert f"{DELETED_PREFIX}{carol.user.pk}" in names  # her seat at the start, renamed
    tenures = alice.get(f"/matches/{match_id}/substitutes").json()["tenures"]
    assert carol.name not in str(tenures) and dave.name in str(tenures)


def test_the_export_of_a_player_who_left_holds_their_own_steps_only(db: None) -> None:
    alice, bob, carol, dave = (make_player() for _ in range(4))
    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    _play_step([alice, bob, carol], match_id)
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    offer = _offer(alice, match_id, seat=2).json()
    assert _answer(dave, match_id, offer["id"], "accept").status_code == 200
    _play_step([alice, bob], match_id)
    _play_step([alice, bob, dave], match_id)
    exported = carol.get("/accounts/me/export")
    assert exported.status_code == 200, exported.content
    (entry,) = [m for m in exported.json()["matches"] if m["id"] == match_id]
    assert entry["seat"] == 2 and entry["forfeited"] is True
    assert [(m["step"], m["made_by"]) for m in entry["moves"]] == [(1, "player"), (2, "forfeit")]
    assert all(m["move"] is None for m in entry["moves"])  # the match is not over
    (his,) = [m for m in dave.get("/accounts/me/export").json()["matches"] if m["id"] == match_id]
    assert [m["step"] for m in his["moves"]] == [3]  # his own steps only
