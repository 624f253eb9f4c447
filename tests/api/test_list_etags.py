"""ETag and If-None-Match on GET /matches and GET /matches/{id}/events: 304 while nothing the
reader may see changed; another seat's hidden action never changes the reader's ETag."""

from __future__ import annotations

from tests.players import start_match


def test_events_answer_304_until_something_visible_happens(alice, bob, carol):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, disclose_submitted=False)
    path = f"/matches/{match_id}/events?after=0"
    first = alice.get(path)
    etag = first["ETag"]
    assert alice.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert alice.get(f"/matches/{match_id}/events?after=1")["ETag"] != etag
    assert carol.get(path)["ETag"] != etag  # per reader

    spectator = carol.get(path)["ETag"]
    bobs = bob.get(path)["ETag"]
    card = alice.match(match_id)["legal_moves"][0]
    assert alice.move(match_id, 1, card).status_code == 202
    # Alice's sealed move, hidden from the others: their ETags stay.
    assert carol.get(path, HTTP_IF_NONE_MATCH=spectator).status_code == 304
    assert bob.get(path, HTTP_IF_NONE_MATCH=bobs).status_code == 304
    assert alice.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 200  # her own move

    assert bob.move(match_id, 1, bob.match(match_id)["legal_moves"][0]).status_code == 202
    for reader, old in ((carol, spectator), (bob, bobs)):
        renewed = reader.get(path, HTTP_IF_NONE_MATCH=old)
        assert renewed.status_code == 200 and renewed.json()["last_seq"] > 0


def test_the_match_list_answers_304_until_a_listed_match_changes(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, disclose_submitted=False)
    first = bob.get("/matches?mine=true")
    assert [m["id"] for m in first.json()["results"]] == [match_id]
    etag = first["ETag"]
    assert bob.get("/matches?mine=true", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert bob.get("/matches?status=open", HTTP_IF_NONE_MATCH=etag).status_code == 200
    mine = alice.get("/matches?mine=true")["ETag"]
    assert alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0]).status_code == 202
    # Hidden from bob; alice sees her own submission.
    assert bob.get("/matches?mine=true", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert alice.get("/matches?mine=true", HTTP_IF_NONE_MATCH=mine).status_code == 200
    bob.move(match_id, 1, bob.match(match_id)["legal_moves"][0])  # the step resolves
    assert bob.get("/matches?mine=true", HTTP_IF_NONE_MATCH=etag).status_code == 200
