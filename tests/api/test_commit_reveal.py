"""The commit-reveal protocol over HTTP (docs/design.md, "Commit-reveal")."""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import timedelta
from typing import Any

import pytest

from games.models import Match, Move
from games.services.audit import audit_transcript
from games.services.bot_seats import bot_moves_play
from games.services.deadlines import step_expire
from games.verify import verify_transcript
from tests.clocks import overdue
from tests.players import Player, make_player, start_match

CR = {"protocol": "commit-reveal"}


def commitment(match_id: str, step: int, seat: int, move: dict[str, Any], salt: str) -> str:
    canonical = json.dumps(move, sort_keys=True, separators=(",", ":"))
    text = f"facedown-move-v1|{match_id}|{step}|{seat}|{canonical}|{salt}"
    return hashlib.sha256(text.encode()).hexdigest()


class Sealer:
    """A client that commits to moves and remembers its salts until it reveals them."""

    def __init__(self, player: Player, match_id: str) -> None:
        self.player, self.match_id = player, match_id
        self.pending: dict[int, tuple[dict[str, Any], str]] = {}

    def commit(self, step: int, move: dict[str, Any], seat: int) -> Any:
        salt = secrets.token_hex(16)
        self.pending[step] = (move, salt)
        digest = commitment(self.match_id, step, seat, move, salt)
        return self.player.post(
            f"/matches/{self.match_id}/moves", {"step": step, "commitment": digest}
        )

    def reveal(self, step: int) -> Any:
        move, salt = self.pending[step]
        return self.player.post(
            f"/matches/{self.match_id}/reveals", {"step": step, "move": move, "salt": salt}
        )


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response.json()["code"] == code
    return response.json()


@pytest.mark.parametrize(("game", "count"), [("gops", 2), ("gops", 3), ("hols-der-geier", 4)])
def test_full_commit_reveal_match_verifies(db, game, count):
    players = [make_player() for _ in range(count)]
    match_id = start_match(
        game, players, **CR, options={} if game == "hols-der-geier" else {"num_cards": 5}
    )
    sealers = [Sealer(p, match_id) for p in players]
    while (seen := players[0].match(match_id))["status"] == "active":
        step = seen["step"]
        assert seen["phase"]["kind"] == "simultaneous"
        for seat, (player, sealer) in enumerate(zip(players, sealers, strict=True)):
            legal = player.match(match_id)["legal_moves"]
            assert sealer.commit(step, legal[seat % len(legal)], seat).status_code == 202
        opened = players[0].match(match_id)
        assert opened["phase"]["kind"] == "reveal" and opened["step"] == step
        assert opened["legal_moves"] == [] and opened["phase"]["submitted"] == []
        for sealer in sealers:
            assert sealer.reveal(step).status_code == 202
    assert seen["status"] == "finished"
    report = verify_transcript(audit_transcript(match_id=match_id))
    assert report.ok, report.failures
    assert report.commitments == count * (seen["step"] - 1 - _forced_steps(match_id))


def _forced_steps(match_id: str) -> int:
    forced = Move.objects.filter(match_id=match_id, source=Move.Source.FORCED)
    return forced.values("step").distinct().count()


@pytest.fixture
def duel(alice: Player, bob: Player) -> tuple[str, Sealer, Sealer]:
    match_id = start_match("gops", [alice, bob], **CR, options={"prize_order": "ascending"})
    return match_id, Sealer(alice, match_id), Sealer(bob, match_id)


def test_a_move_in_the_commit_phase_and_a_reveal_too_early_are_wrong_phase(duel, alice):
    match_id, a, _ = duel
    _problem(alice.move(match_id, 1, {"card": 5}), 409, "wrong_phase")
    assert a.commit(1, {"card": 5}, 0).status_code == 202
    _problem(a.reveal(1), 409, "wrong_phase")  # bob has not committed yet
    assert Match.objects.get(pk=match_id).phase_kind == "simultaneous"


def test_commitments_are_bound_to_match_step_and_seat(duel, alice, bob, carol):
    match_id, a, _ = duel
    assert a.commit(1, {"card": 5}, 0).status_code == 202
    mine = Move.objects.get(match_id=match_id, seat=0).commitment
    # bob replays alice's commitment: refused, nothing recorded for him
    _problem(
        bob.post(f"/matches/{match_id}/moves", {"step": 1, "commitment": mine}),
        409,
        "commitment_reused",
    )
    assert not Move.objects.filter(match_id=match_id, seat=1).exists()
    # alice re-posting her own commitment is an identical re-post; another one is refused
    again = alice.post(f"/matches/{match_id}/moves", {"step": 1, "commitment": mine})
    assert again.status_code == 200
    _problem(
        alice.post(f"/matches/{match_id}/moves", {"step": 1, "commitment": "b" * 64}),
        409,
        "already_submitted",
    )
    # a commitment made for another match cannot be revealed here
    other = start_match("gops", [alice, carol], **CR)
    elsewhere = Sealer(bob, other)
    bob_move, salt = {"card": 3}, "c" * 32
    elsewhere.pending[1] = (bob_move, salt)
    foreign = commitment(other, 1, 1, bob_move, salt)
    assert (
        bob.post(f"/matches/{match_id}/moves", {"step": 1, "commitment": foreign}).status_code
        == 202
    )
    reveal = bob.post(f"/matches/{match_id}/reveals", {"step": 1, "move": bob_move, "salt": salt})
    _problem(reveal, 409, "commitment_mismatch")


def test_mismatch_is_refused_and_may_be_retried(duel, alice):
    match_id, a, b = duel
    a.commit(1, {"card": 5}, 0)
    b.commit(1, {"card": 2}, 1)
    move, salt = a.pending[1]
    before = list(Move.objects.order_by("id").values())
    _problem(
        alice.post(f"/matches/{match_id}/reveals", {"step": 1, "move": {"card": 6}, "salt": salt}),
        409,
        "commitment_mismatch",
    )
    _problem(
        alice.post(f"/matches/{match_id}/reveals", {"step": 1, "move": move, "salt": "d" * 32}),
        409,
        "commitment_mismatch",
    )
    assert list(Move.objects.order_by("id").values()) == before
    assert a.reveal(1).status_code == 202
    # an identical reveal is a re-post; a different one after revealing is refused
    assert a.reveal(1).status_code == 200
    _problem(
        alice.post(f"/matches/{match_id}/reveals", {"step": 1, "move": {"card": 6}, "salt": salt}),
        409,
        "already_submitted",
    )
    _problem(
        alice.post(f"/matches/{match_id}/moves", {"step": 1, "commitment": "e" * 64}),
        409,
        "wrong_phase",
    )


def test_nothing_before_the_reveal_discloses_a_committed_move(duel, alice, bob, carol):
    match_id, a, b = duel
    a.commit(1, {"card": 13}, 0)
    b.commit(1, {"card": 1}, 1)
    assert a.reveal(1).status_code == 202
    for viewer in (bob, carol):
        body = json.dumps(viewer.match(match_id)) + json.dumps(viewer.events(match_id))
        assert '"card": 13' not in body.replace('"card":13', '"card": 13')
        assert viewer.match(match_id)["phase"]["your_move"] is None
    assert alice.match(match_id)["phase"]["your_move"] == {"card": 13}
    assert b.reveal(1).status_code == 202
    resolved = [e for e in bob.events(match_id)["results"] if e["type"] == "step_resolved"]
    assert resolved[0]["data"]["bids"] == [13, 1]


def test_undisclosed_commitments_change_nothing_others_read(alice, bob):
    match_id = start_match("gops", [alice, bob], **CR, disclose_submitted=False)
    a = Sealer(alice, match_id)
    tag = bob.get(f"/matches/{match_id}")["ETag"]
    version = bob.match(match_id)["version"]
    a.commit(1, {"card": 5}, 0)
    assert bob.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=tag).status_code == 304
    Sealer(bob, match_id).commit(1, {"card": 4}, 1)
    assert bob.match(match_id)["version"] == version + 1  # the reveal phase opened


def test_a_matching_reveal_of_an_illegal_move_forfeits(duel, alice, bob):
    match_id, a, b = duel
    a.commit(1, {"card": 99}, 0)
    b.commit(1, {"card": 2}, 1)
    answer = a.reveal(1)
    problem = _problem(answer, 400, "illegal_move")
    assert problem["forfeited"] is True
    final = bob.match(match_id)
    assert final["seats"][0]["forfeited"] is True
    assert final["status"] == "finished" and final["result"]["winners"] == [1]


def test_an_illegal_reveal_in_a_three_seat_match_lets_the_others_play_on(alice, bob, carol):
    match_id = start_match("gops", [alice, bob, carol], **CR, options={"num_cards": 4})
    sealers = [Sealer(p, match_id) for p in (alice, bob, carol)]
    for seat, card in enumerate((4, 4, 77)):
        sealers[seat].commit(1, {"card": card}, seat)
    sealers[0].reveal(1)
    sealers[1].reveal(1)
    _problem(sealers[2].reveal(1), 400, "illegal_move")
    seen = alice.match(match_id)
    assert seen["step"] == 2 and seen["seats"][2]["forfeited"]
    stand_in = Move.objects.get(match_id=match_id, step=1, seat=2)
    assert stand_in.source == Move.Source.FORFEIT and stand_in.commitment


@pytest.mark.parametrize("policy", ["auto_move", "forfeit"])
def test_a_missing_reveal_at_the_deadline_forfeits_whatever_the_policy(alice, bob, carol, policy):
    match_id = start_match(
        "gops",
        [alice, bob, carol],
        **CR,
        options={"num_cards": 4},
        time_control={"per_step_seconds": 60, "on_timeout": policy},
    )
    sealers = [Sealer(p, match_id) for p in (alice, bob, carol)]
    for seat in range(3):
        sealers[seat].commit(1, {"card": 1 + seat}, seat)
    assert alice.match(match_id)["phase"]["deadline"] is not None
    sealers[0].reveal(1)
    sealers[1].reveal(1)
    overdue(match_id, by=timedelta(seconds=1))
    assert step_expire(match_id=match_id, step=1)
    seen = alice.match(match_id)
    assert seen["seats"][2]["forfeited"] is True and seen["step"] == 2
    events = [e for e in alice.events(match_id)["results"] if e["type"] == "timeout"]
    assert events[-1]["data"] == {"seat": 2, "policy": "forfeit"}


def test_a_missing_commitment_follows_the_timeout_policy(alice, bob):
    match_id = start_match(
        "gops", [alice, bob], **CR, time_control={"per_step_seconds": 60, "on_timeout": "auto_move"}
    )
    Sealer(alice, match_id).commit(1, {"card": 5}, 0)
    overdue(match_id, by=timedelta(seconds=1))
    assert step_expire(match_id=match_id, step=1)
    seen = bob.match(match_id)
    assert seen["phase"]["kind"] == "reveal" and seen["phase"]["submitted"] == [1]
    assert not seen["seats"][1]["forfeited"]


def test_bots_play_plain_moves_in_a_commit_reveal_match(alice):
    created = alice.create("gops", ["me", {"bot": "greedy"}], **CR, options={"num_cards": 3})
    match_id = created.json()["id"]
    sealer = Sealer(alice, match_id)
    for step in (1, 2):
        bot_moves_play(match_id=match_id, step=step)
        sealer.commit(step, alice.match(match_id)["legal_moves"][0], 0)
        assert alice.match(match_id)["phase"]["kind"] == "reveal"
        assert sealer.reveal(step).status_code == 202
    final = alice.match(match_id)
    assert final["status"] == "finished"
    assert verify_transcript(audit_transcript(match_id=match_id)).ok
