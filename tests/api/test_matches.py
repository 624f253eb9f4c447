"""Whole matches over HTTP: creation, invitations, open seats, play to the end, resign."""

from __future__ import annotations

import random

import pytest

from games.models import Match, MatchEvent, Move
from tests.players import Player, make_player, play_to_end, start_match


def _events(player: Player, match_id: str) -> list[dict]:
    return player.events(match_id)["results"]


@pytest.mark.parametrize(
    ("game", "count", "options"),
    [
        ("gops", 2, {}),
        ("gops", 3, {"tie_rule": "carry"}),
        ("hols-der-geier", 2, {}),
        ("hols-der-geier", 3, {"final_tiebreak": "highest_mouse"}),
        ("hols-der-geier", 4, {"deals": 2}),
        ("hols-der-geier", 5, {"history": "table_only"}),
    ],
)
def test_full_match_with_invitations_and_open_seats(db, game, count, options):
    players = [make_player() for _ in range(count)]
    host, *guests = players
    invited, opened = guests[: len(guests) // 2 + 1], guests[len(guests) // 2 + 1 :]
    seats = ["me", *({"user": p.name} for p in invited), *("open" for _ in opened)]
    created = host.create(game, seats, options=options)
    assert created.status_code == 201, created.content
    body = created.json()
    assert created["Location"].endswith(f"/api/v1/matches/{body['id']}")
    assert body["status"] == "open" and body["step"] == 0
    assert body["phase"]["kind"] == "none"
    assert len(body["fairness"]["seed_sha256"]) == 64 and body["fairness"]["seed"] is None
    match_id = body["id"]

    for guest in invited:
        assert guest.post(f"/matches/{match_id}/join", {"client_seed": "abc"}).status_code == 200
    for guest in opened:
        # the open match is listed for a player who could join it
        listed = guest.get("/matches?status=open").json()["results"]
        assert match_id in [m["id"] for m in listed]
        assert guest.post(f"/matches/{match_id}/join").status_code == 200

    started = host.match(match_id)
    assert started["status"] == "active" and started["step"] == 1
    assert started["phase"]["to_act"] == list(range(count))
    assert [seat["player"] for seat in started["seats"]] == [p.name for p in players]

    rng = random.Random(count)
    final = play_to_end(match_id, players, pick=rng.choice)
    assert final["status"] == "finished"
    result = final["result"]
    assert result["reason"] == "completed"
    assert len(result["scores"]) == count
    assert sorted(s for group in result["ranking"] for s in group) == list(range(count))
    assert [seat["score"] for seat in final["seats"]] == result["scores"]
    assert final["fairness"]["seed"] is not None
    assert final["phase"]["kind"] == "none" and final["legal_moves"] == []

    events = _events(host, match_id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "match_finished"
    # The result, and the rating changes (docs/api.md, "Ratings").
    assert {k: v for k, v in events[-1]["data"].items() if k != "ratings"} == result
    assert len(events[-1]["data"]["ratings"]) == count
    resolved = [e for e in events if e["type"] == "step_resolved"]
    assert [e["step"] for e in resolved] == list(range(1, final["step"]))
    # one move per seat per step, every step
    assert Move.objects.filter(match_id=match_id).count() == count * (final["step"] - 1)


def test_forced_last_step_is_played_by_the_server(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    for step in (1, 2):
        for p, card in ((alice, step), (bob, step)):
            assert p.move(match_id, step, {"card": card}).status_code == 202
    final = alice.match(match_id)
    assert final["status"] == "finished" and final["step"] == 4
    forced = Move.objects.get(match_id=match_id, step=3, seat=0)
    assert forced.source == Move.Source.FORCED and forced.payload == {"card": 3}
    types = [e["type"] for e in _events(alice, match_id) if e["step"] == 3]
    assert types == ["step_opened", "step_resolved", "match_finished"]  # it ended in step 3


def test_gops_two_player_prizes_in_view_and_events(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"prize_order": "descending"})
    seen = alice.match(match_id)
    assert seen["view"]["pot"] == [13]
    assert seen["view"]["hand"] == list(range(1, 14))
    assert seen["legal_moves"] == [{"card": c} for c in range(1, 14)]
    alice.move(match_id, 1, {"card": 13})
    bob.move(match_id, 1, {"card": 1})
    after = bob.match(match_id)
    assert after["step"] == 2 and after["view"]["pot"] == [12]
    assert [s["score"] for s in after["seats"]] == [13, 0]
    resolved = next(e for e in _events(bob, match_id) if e["type"] == "step_resolved")
    assert resolved["data"]["bids"] == [13, 1] and resolved["data"]["winner"] == 0


def test_identical_repost_answers_200_with_the_original_receipt(alice, bob):
    match_id = start_match("gops", [alice, bob])
    first = alice.move(match_id, 1, {"card": 4})
    again = alice.move(match_id, 1, {"card": 4})
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json() == first.json()
    assert Move.objects.filter(match_id=match_id).count() == 1


def test_receipt_digest_is_salted_and_names_the_submission(alice, bob):
    match_id = start_match("gops", [alice, bob])
    receipt = alice.move(match_id, 1, {"card": 4}).json()["receipt"]
    move = Move.objects.get(match_id=match_id, step=1, seat=0)
    import hashlib

    message = f'facedown-receipt-v1|{match_id}|1|0|{{"card":4}}|{move.receipt_salt}'
    assert receipt["digest"] == hashlib.sha256(message.encode()).hexdigest()
    assert receipt["sig"] and receipt["key_id"] and receipt["match"] == match_id
    assert (receipt["step"], receipt["seat"]) == (1, 0)


def test_version_rises_on_public_changes_only(alice, bob):
    match_id = start_match("gops", [alice, bob], disclose_submitted=False)
    before = bob.match(match_id)["version"]
    alice.move(match_id, 1, {"card": 4})
    assert bob.match(match_id)["version"] == before
    bob.move(match_id, 1, {"card": 5})
    assert bob.match(match_id)["version"] == before + 1


def test_list_filters(alice, bob, carol):
    active = start_match("gops", [alice, bob])
    hols = start_match("hols-der-geier", [alice, carol])
    waiting = alice.create("gops", ["me", "open"]).json()["id"]
    bobs_open = bob.create("gops", ["me", "open"]).json()["id"]

    def ids(query: str, who: Player = alice) -> set[str]:
        response = who.get(f"/matches{query}")
        assert response.status_code == 200
        assert set(response.json()) == {"results", "next"}
        return {m["id"] for m in response.json()["results"]}

    assert ids("?mine=true") == {active, hols, waiting}
    assert ids("") == {active, hols, waiting, bobs_open}
    assert ids("?status=open") == {waiting, bobs_open}
    assert ids("?game=hols-der-geier") == {hols}
    assert ids("?awaiting_me=true") == {active, hols}
    alice.move(active, 1, {"card": 1})
    assert ids("?awaiting_me=true") == {hols}
    assert ids("?awaiting_me=true", bob) == {active}
    item = alice.get("/matches?mine=true").json()["results"][0]
    assert "view" not in item and "legal_moves" not in item
    assert {"id", "seats", "phase", "you", "fairness", "status"} <= set(item)


def test_invited_lists_the_invitations_waiting_for_my_answer(alice, bob, carol):
    def ids(query: str, who: Player) -> set[str]:
        response = who.get(f"/matches{query}")
        assert response.status_code == 200
        return {m["id"] for m in response.json()["results"]}

    to_accept = alice.create("gops", ["me", {"user": bob.name}]).json()["id"]
    to_decline = alice.create("gops", ["me", {"user": bob.name}, "open"]).json()["id"]
    for_carol = alice.create("gops", ["me", {"user": carol.name}]).json()["id"]
    open_seat = carol.create("gops", ["me", "open"]).json()["id"]
    assert ids("?invited=true", bob) == {to_accept, to_decline}
    assert ids("?invited=true", carol) == {for_carol}
    assert ids("?invited=true", alice) == set()  # she invited; nobody invited her
    assert ids("?invited=false", bob) >= {to_accept, to_decline, open_seat}
    assert ids("?invited=true&game=hols-der-geier", bob) == set()

    assert bob.post(f"/matches/{to_accept}/join").status_code == 200
    assert bob.post(f"/matches/{to_decline}/decline").status_code == 200
    assert ids("?invited=true", bob) == set()
    assert ids("?awaiting_me=true", bob) == {to_accept}  # keeps its meaning: my move


def test_list_is_cursor_paginated(alice, bob):
    for _ in range(5):
        start_match("gops", [alice, bob])
    page = alice.get("/matches?page_size=2").json()
    seen = [m["id"] for m in page["results"]]
    while page["next"]:
        page = alice.client.get(page["next"]).json()
        seen += [m["id"] for m in page["results"]]
    assert len(seen) == len(set(seen)) == 5


def test_creator_not_ready_joins_to_become_ready(alice, bob):
    match_id = alice.create("gops", ["me", {"user": "bob"}], ready=False).json()["id"]
    assert bob.post(f"/matches/{match_id}/join").status_code == 200
    assert alice.match(match_id)["status"] == "open"
    assert alice.post(f"/matches/{match_id}/join", {"client_seed": "x-1"}).status_code == 200
    assert alice.match(match_id)["status"] == "active"


def test_client_seeds_feed_the_deal(alice, bob):
    match_id = start_match("gops", [alice, bob])
    match = Match.objects.get(pk=match_id)
    assert [s.client_seed for s in match.seats.order_by("index")] == ["", "seed-bob"]


def test_decline_aborts_the_match(alice, bob):
    match_id = alice.create("gops", ["me", {"user": "bob"}]).json()["id"]
    answer = bob.post(f"/matches/{match_id}/decline")
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "aborted" and body["result"]["reason"] == "aborted"
    assert body["fairness"]["seed"] is not None
    assert _events(alice, match_id)[-1]["type"] == "match_aborted"


def test_resign_before_start_frees_the_seat_and_creator_leaving_aborts(alice, bob, carol):
    match_id = alice.create("gops", ["me", "open", "open"]).json()["id"]
    bob.post(f"/matches/{match_id}/join")
    left = bob.post(f"/matches/{match_id}/resign").json()
    assert left["status"] == "open" and left["seats"][1]["player"] is None
    assert carol.post(f"/matches/{match_id}/join", {"seat": 1}).status_code == 200
    assert alice.post(f"/matches/{match_id}/resign").json()["status"] == "aborted"


def test_resign_in_two_player_match_ends_it(alice, bob):
    match_id = start_match("gops", [alice, bob])
    alice.move(match_id, 1, {"card": 13})
    bob.move(match_id, 1, {"card": 1})
    final = bob.post(f"/matches/{match_id}/resign").json()
    assert final["status"] == "finished"
    assert final["result"] == {
        "scores": final["result"]["scores"],
        "winners": [0],
        "ranking": [[0], [1]],
        "reason": "forfeit",
    }
    assert final["seats"][1]["forfeited"] is True
    types = [e["type"] for e in _events(alice, match_id)]
    assert types[-2:] == ["seat_forfeited", "match_finished"]


def test_resigned_seat_keeps_playing_timeout_moves(alice, bob, carol):
    match_id = start_match("gops", [alice, bob, carol], options={"num_cards": 4})
    alice.move(match_id, 1, {"card": 4})
    bob.move(match_id, 1, {"card": 3})
    # carol resigns while the others wait for her: the step resolves with her timeout move
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    seen = alice.match(match_id)
    assert seen["step"] == 2 and seen["seats"][2]["forfeited"]
    assert seen["phase"]["to_act"] == [0, 1, 2]
    assert carol.match(match_id)["legal_moves"] == []
    final = play_to_end(match_id, [alice, bob])
    assert final["status"] == "finished" and final["result"]["reason"] == "completed"
    assert final["result"]["ranking"][-1] == [2]
    assert 2 not in final["result"]["winners"]
    sources = set(Move.objects.filter(match_id=match_id, seat=2).values_list("source", flat=True))
    assert sources == {Move.Source.FORFEIT}


def test_every_public_transition_is_an_event(alice, bob):
    match_id = start_match("gops", [alice, bob])
    types = [e.type for e in MatchEvent.objects.filter(match_id=match_id).order_by("seq")]
    assert types == ["match_created", "seat_joined", "match_started", "step_opened"]


def test_events_after_and_paging(alice, bob):
    match_id = start_match("gops", [alice, bob])
    page = alice.events(match_id, after=2)
    assert [e["seq"] for e in page["results"]] == [3, 4]
    assert page["last_seq"] == 4 and page["next"] is None
    assert alice.events(match_id, after=4)["results"] == []


@pytest.mark.django_db
def test_an_invitation_finds_a_name_in_any_case(alice: Player, bob: Player) -> None:
    created = alice.create("gops", ["me", {"user": "BOB"}], options={"num_cards": 3})
    assert created.status_code == 201, created.content
    assert [seat["player"] for seat in created.json()["seats"]] == ["alice", "bob"]
    assert bob.post(f"/matches/{created.json()['id']}/join").status_code == 200
    twice = alice.create("gops", ["me", {"user": "Alice"}], options={"num_cards": 3})
    assert twice.status_code == 409 and twice.json()["code"] == "already_seated"
