"""GET /matches/{id}/audit: the facedown-transcript-v1 transcript of a match that is over."""

from __future__ import annotations

import hashlib

from rest_framework.test import APIClient

from games.models import Move
from games.services.audit import audit_transcript
from tests.fairness.helpers import audit, finished_match
from tests.players import API, make_player, start_match

TOP_FIELDS = {
    "format", "match", "game", "options", "protocol", "seats", "rules_version", "seed",
    "seed_sha256", "client_seeds", "key_id", "public_keys", "steps", "events", "result",
}  # fmt: skip
STEP_FIELDS = {"step", "commitments", "moves", "salts", "receipts", "receipt_salts", "sources"}
SEAT_FIELDS = {"index", "player", "bot", "forfeited", "accepted", "controlled_by", "client_seed"}


def problem_code(response) -> str:
    return response.json()["code"]


def test_not_finished_while_open_or_active(alice, bob, carol):
    created = alice.create("gops", ["me", {"user": bob.name}])
    match_id = created.json()["id"]
    answer = alice.get(f"/matches/{match_id}/audit")
    assert (answer.status_code, problem_code(answer)) == (409, "match_not_finished")
    bob.post(f"/matches/{match_id}/join")
    for reader in (alice, carol):  # a seat or a spectator: the same answer
        answer = reader.get(f"/matches/{match_id}/audit")
        assert (answer.status_code, problem_code(answer)) == (409, "match_not_finished")
        assert answer["Content-Type"].startswith("application/problem+json")


def test_needs_authentication_and_an_existing_match(alice, bob):
    match_id, _ = finished_match("gops", 2, {"num_cards": 3})
    assert APIClient().get(f"{API}/matches/{match_id}/audit").status_code == 401
    missing = alice.get("/matches/00000000-0000-4000-8000-000000000000/audit")
    assert (missing.status_code, problem_code(missing)) == (404, "not_found")
    assert alice.get("/matches/not-a-uuid/audit").status_code == 404


def test_finished_match_transcript_has_every_field(db):
    match_id, players = finished_match("hols-der-geier", 3, {"deals": 2}, seed=3)
    spectator = make_player()
    transcript = audit(spectator, match_id)  # any authenticated user may read it
    assert set(transcript) >= TOP_FIELDS
    assert transcript["format"] == "facedown-transcript-v1"
    assert transcript["match"] == match_id and transcript["game"] == "hols-der-geier"
    assert transcript["rules_version"] == "hols-1"
    assert transcript["protocol"] == "sealed" and transcript["status"] == "finished"
    assert transcript["options"]["deals"] == 2
    seed = transcript["seed"]
    assert len(seed) == 64
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == transcript["seed_sha256"]
    assert transcript["client_seeds"] == [None, *(f"seed-{p.name}" for p in players[1:])]
    for index, seat in enumerate(transcript["seats"]):
        assert set(seat) >= SEAT_FIELDS
        assert (seat["index"], seat["player"]) == (index, players[index].name)
    steps = transcript["steps"]
    assert [s["step"] for s in steps] == list(range(1, 31))
    for step in steps:
        assert set(step) == STEP_FIELDS
        assert all(len(step[name]) == 3 for name in STEP_FIELDS - {"step"})
        assert step["commitments"] == step["salts"] == [None, None, None]
        for move, receipt, salt, source in zip(
            step["moves"], step["receipts"], step["receipt_salts"], step["sources"], strict=True
        ):
            assert set(move) == {"card"}
            if source == "player":
                assert receipt["key_id"] == transcript["key_id"] and len(salt) == 32
            else:
                assert source == "forced" and receipt is None and salt is None
    assert transcript["public_keys"] == {
        transcript["key_id"]: transcript["public_keys"][transcript["key_id"]]
    }
    events = transcript["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "match_finished"
    finished = {k: v for k, v in events[-1]["data"].items() if k != "ratings"}
    assert finished == transcript["result"]
    # No submission time is published, even after the end.
    assert all(e["at"] is None for e in events if e["type"] == "move_submitted")
    assert transcript["result"]["reason"] == "completed"
    assert transcript == audit_transcript(match_id=match_id)


def test_table_only_events_are_unredacted_in_the_transcript(db):
    match_id, players = finished_match("hols-der-geier", 3, {"history": "table_only"}, seed=5)
    transcript = audit(players[0], match_id)
    resolved = [e for e in transcript["events"] if e["type"] == "step_resolved"]
    assert resolved and all(e["data"] is not None and "bids" in e["data"] for e in resolved)


def test_private_event_data_is_included(db):
    match_id, players = finished_match("hols-der-geier", 2, {"deals": 2}, seed=1)
    transcript = audit(players[0], match_id)
    new_deal = [e for e in transcript["events"] if e["private"]]
    assert new_deal and set(new_deal[0]["private"]) == {"0", "1"}


def test_aborted_match_before_the_start(alice, bob):
    match_id = alice.create("gops", ["me", {"user": bob.name}]).json()["id"]
    assert bob.post(f"/matches/{match_id}/decline").status_code == 200
    transcript = audit(alice, match_id)
    assert set(transcript) >= TOP_FIELDS
    assert transcript["status"] == "aborted" and transcript["result"]["reason"] == "aborted"
    assert transcript["steps"] == [] and len(transcript["seed"]) == 64
    assert transcript["client_seeds"] == [None, None]


def test_resigned_match_leaves_null_for_the_seat_without_a_move(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    alice.move(match_id, 1, {"card": 1})
    bob.move(match_id, 1, {"card": 2})
    alice.move(match_id, 2, {"card": 2})
    assert bob.post(f"/matches/{match_id}/resign").status_code == 200
    transcript = audit(bob, match_id)
    assert transcript["result"]["reason"] == "forfeit"
    assert [s["step"] for s in transcript["steps"]] == [1, 2]
    last = transcript["steps"][-1]
    assert last["moves"] == [{"card": 2}, None]
    assert last["receipts"][1] is None and last["receipt_salts"][1] is None
    assert last["sources"] == ["player", None]
    assert transcript["seats"][1]["forfeited"] is True
    assert Move.objects.filter(match_id=match_id).count() == 3
