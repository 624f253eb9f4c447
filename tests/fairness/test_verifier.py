"""The standalone verifier: every match played here passes, every tampering is named."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games.signing import key_from_hex, signing_key
from games.verify import Report, main, verify_transcript
from tests.fairness.helpers import REPO, audit, finished_match, run_cli, tampered
from tests.players import make_player, play_to_end, start_match

MATCHES = [
    ("gops", 2, {}),
    ("gops", 3, {"tie_rule": "carry", "final_tie": "to_game_winner"}),
    ("gops", 3, {"tie_rule": "penguin", "num_cards": 6}),
    ("gops", 2, {"tie_rule": "discard", "prize_order": "descending", "num_cards": 5}),
    ("hols-der-geier", 2, {}),
    ("hols-der-geier", 2, {"deals": 2, "final_tiebreak": "highest_mouse"}),
    ("hols-der-geier", 3, {"final_tiebreak": "shared"}),
    ("hols-der-geier", 4, {"deals": 2}),
    ("hols-der-geier", 5, {"history": "table_only"}),
]


def check(transcript: dict[str, Any], **kwargs: Any) -> Report:
    report = verify_transcript(transcript, **kwargs)
    assert report.ok, report.verdict()
    return report


@pytest.mark.parametrize(("game", "count", "options"), MATCHES)
def test_every_finished_match_verifies(db, tmp_path, game, count, options):
    match_id, players = finished_match(game, count, options, seed=count)
    transcript = audit(players[-1], match_id)
    report = check(transcript, public_keys=[signing_key().public_key])
    assert report.steps_replayed == len(transcript["steps"])
    assert report.receipts == report.signatures > 0
    assert report.keys_used == {signing_key().key_id}
    assert report.verdict().startswith(f"OK: {game} match {match_id}: ")

    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(transcript))
    done = run_cli(path, "--public-key", signing_key().public_key)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"OK: {game} match {match_id}")


def test_a_match_ended_by_resignation_verifies(tmp_path, alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 6})
    for step, (a, b) in enumerate([(6, 1), (1, 6), (3, 3)], start=1):
        alice.move(match_id, step, {"card": a})
        bob.move(match_id, step, {"card": b})
    alice.move(match_id, 4, {"card": 5})  # bob resigns before answering
    assert bob.post(f"/matches/{match_id}/resign").status_code == 200
    transcript = audit(alice, match_id)
    assert transcript["result"]["reason"] == "forfeit"
    assert transcript["result"]["winners"] == [0]
    report = check(transcript)
    assert report.steps_replayed == 3 and report.receipts == 7
    path = tmp_path / "t.json"
    path.write_text(json.dumps(transcript))
    assert run_cli(path).returncode == 0


def test_a_resignation_in_a_three_player_match_verifies(alice, bob, carol):
    match_id = start_match("hols-der-geier", [alice, bob, carol])
    for step in (1, 2):
        for seat, player in enumerate((alice, bob, carol)):
            player.move(match_id, step, {"card": step + 5 * seat})
    carol.move(match_id, 3, {"card": 15})
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    final = play_to_end(match_id, [alice, bob, carol])
    assert final["result"]["reason"] == "completed"
    transcript = audit(bob, match_id)
    sources = {s for step in transcript["steps"] for s in step["sources"]}
    assert "forfeit" in sources
    report = check(transcript)
    assert report.steps_replayed == 15


def test_aborted_matches_verify(alice, bob, carol):
    declined = alice.create("gops", ["me", {"user": bob.name}]).json()["id"]
    bob.post(f"/matches/{declined}/decline")
    check(audit(carol, declined))
    left = alice.create("hols-der-geier", ["me", "open", "open"]).json()["id"]
    bob.post(f"/matches/{left}/join", {"client_seed": "early"})
    alice.post(f"/matches/{left}/resign")  # the creator leaving aborts
    transcript = audit(bob, left)
    assert transcript["result"]["reason"] == "aborted"
    check(transcript)


# --- tampering ------------------------------------------------------------------------------


@pytest.fixture
def played(db) -> dict[str, Any]:
    """A finished 2-player GOPS match (random prize order) with client seeds on both seats."""
    alice, bob = make_player(), make_player()
    match_id = alice.create("gops", ["me", {"user": bob.name}], ready=False).json()["id"]
    alice.post(f"/matches/{match_id}/join", {"client_seed": "alice-entropy"})
    bob.post(f"/matches/{match_id}/join", {"client_seed": "bob-entropy"})
    for step in range(1, 8):
        alice.move(match_id, step, {"card": step})
        bob.move(match_id, step, {"card": 14 - step})
    for step in range(8, 13):  # the 13th turn is forced
        alice.move(match_id, step, {"card": step})
        bob.move(match_id, step, {"card": 14 - step})
    transcript = audit(alice, match_id)
    assert transcript["result"]["reason"] == "completed"
    assert transcript["client_seeds"] == ["alice-entropy", "bob-entropy"]
    check(transcript)
    return transcript


def failures(transcript: dict[str, Any], **kwargs: Any) -> list[str]:
    report = verify_transcript(transcript, **kwargs)
    assert not report.ok
    assert report.verdict().startswith("FAILED: ")
    return report.problems


def test_changed_move(played):
    t = tampered(played)
    t["steps"][3]["moves"][1] = {"card": 7}  # bob really bid 10 at step 4
    problems = failures(t)
    assert problems[0] == 'step 4 seat 1: receipt digest does not match the move {"card": 7}'
    assert any(p.startswith("step 4: step_resolved does not match the replay") for p in problems)


def test_changed_moves_of_both_seats(played):
    t = tampered(played)
    t["steps"][0]["moves"] = [{"card": 13}, {"card": 1}]
    problems = failures(t)
    assert 'step 1 seat 0: receipt digest does not match the move {"card": 13}' in problems
    assert 'step 1 seat 1: receipt digest does not match the move {"card": 1}' in problems


def test_changed_seed(played):
    t = tampered(played)
    t["seed"] = "00" * 32
    assert failures(t) == [
        "seed does not match seed_sha256: sha256(seed) = "
        f"66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925, "
        f"published {played['seed_sha256']}"
    ]


def test_changed_seed_with_its_hash(played):
    """A seed and hash swapped together give another deal: the replay disagrees."""
    t = tampered(played)
    t["seed"] = "00" * 32
    t["seed_sha256"] = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    assert_other_deal(failures(t))


def assert_other_deal(problems: list[str]) -> None:
    """Another deal shows at the first step whose turned-up prizes differ (usually step 1;
    later when the first cards happen to agree)."""
    assert re.fullmatch(
        r"step \d+: step_resolved does not match the replay \(.*(next_)?pot: recorded .*\)",
        problems[0],
    ), problems


def test_swapped_client_seeds(played):
    t = tampered(played)
    t["client_seeds"].reverse()
    assert_other_deal(failures(t))


def test_changed_client_seed(played):
    t = tampered(played)
    t["client_seeds"][1] = "bob-entropy2"
    assert_other_deal(failures(t))


def test_different_prize_order_option(played):
    t = tampered(played)
    t["options"]["prize_order"] = "ascending"
    assert_other_deal(failures(t))


def test_forged_receipt_digest(played):
    t = tampered(played)
    t["steps"][5]["receipts"][0]["digest"] = "ab" * 32
    assert failures(t) == [
        'step 6 seat 0: receipt digest does not match the move {"card": 6}',
        f"step 6 seat 0: receipt signature is not valid for key {played['key_id']}",
    ]


def test_forged_receipt_salt(played):
    t = tampered(played)
    t["steps"][2]["receipt_salts"][1] = "0" * 32
    assert failures(t) == ['step 3 seat 1: receipt digest does not match the move {"card": 11}']


def test_forged_signature(played):
    t = tampered(played)
    sig = t["steps"][0]["receipts"][1]["sig"]
    t["steps"][0]["receipts"][1]["sig"] = sig[:-2] + ("00" if sig[-2:] != "00" else "11")
    assert failures(t) == [
        f"step 1 seat 1: receipt signature is not valid for key {played['key_id']}"
    ]


def test_receipt_resigned_by_another_key(played):
    """A receipt re-signed with a key the server does not hold fails when the key is pinned."""
    from games.signing import signature_message

    other = key_from_hex("33" * 32)
    t = tampered(played)
    receipt = t["steps"][1]["receipts"][0]
    receipt["key_id"] = other.key_id
    receipt["sig"] = other.sign(signature_message(receipt))
    t["public_keys"][other.key_id] = other.public_key
    check(t)  # self-consistent with the keys it carries …
    assert failures(t, public_keys=[signing_key().public_key]) == [  # … not with the server's
        f"step 2 seat 0: receipt signed by unknown key '{other.key_id}'"
    ]


def test_stripped_signature(played):
    t = tampered(played)
    t["steps"][4]["receipts"][1]["sig"] = None
    assert failures(t) == ["step 5 seat 1: the receipt is not signed"]


def test_missing_receipt_for_a_players_move(played):
    t = tampered(played)
    t["steps"][4]["receipts"][1] = None
    t["steps"][4]["receipt_salts"][1] = None
    assert failures(t) == ["step 5 seat 1: the player's move has no receipt"]


def test_changed_result(played):
    t = tampered(played)
    scores = played["result"]["scores"]
    t["result"]["scores"] = [scores[0] + 1, scores[1]]
    problems = failures(t)
    assert problems[0] == (
        f"result scores is {json.dumps(t['result']['scores'])}, the replay gives "
        f"{json.dumps(scores)}"
    )
    assert "the match_finished event does not carry the transcript's result" in problems


def test_changed_result_reason(played):
    t = tampered(played)
    t["result"]["reason"] = "forfeit"
    assert "result: reason 'forfeit' but seats [0, 1] had not forfeited" in failures(t)


def test_changed_event(played):
    t = tampered(played)
    event = next(e for e in t["events"] if e["type"] == "step_resolved" and e["step"] == 2)
    event["data"]["winner"] = 1 - (event["data"]["winner"] or 0)
    assert failures(t)[0].startswith("step 2: step_resolved does not match the replay (winner:")


def test_dropped_step(played):
    t = tampered(played)
    del t["steps"][6]
    assert failures(t)[0] == "steps must be numbered 1, 2, … without gaps; found " + str(
        [*range(1, 7), *range(8, 14)]
    )


def test_changed_commitment(played):
    """Commitments are checked where present (commit-reveal matches)."""
    from games.verify import commitment_hash

    t = tampered(played)
    salt = "ab" * 16
    step = t["steps"][0]
    step["salts"] = [salt, salt + "cd"]
    step["commitments"] = [
        commitment_hash(t["match"], 1, 0, step["moves"][0], salt),
        commitment_hash(t["match"], 1, 1, {"card": 12}, salt + "cd"),
    ]
    assert failures(t) == [
        f'step 1 seat 1: commitment does not match the move {{"card": 13}} and salt {salt}cd'
    ]


def test_cli_reports_failure_with_exit_status_1(played, tmp_path):
    t = tampered(played)
    t["steps"][3]["moves"][1] = {"card": 7}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(t))
    done = run_cli(path)
    assert done.returncode == 1
    assert done.stdout.startswith(f"FAILED: gops match {played['match']}: ")
    assert 'step 4 seat 1: receipt digest does not match the move {"card": 7}' in done.stdout
    unreadable = run_cli(path.with_name("missing.json"))
    assert unreadable.returncode == 2 and unreadable.stderr.startswith("FAILED: cannot read")


def test_main_in_process(played, tmp_path, capsys):
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(played))
    assert main([str(path), "--public-key", signing_key().public_key]) == 0
    assert capsys.readouterr().out.startswith("OK: ")


def test_the_verifier_imports_no_django(tmp_path, played):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(played))
    script = (
        "import runpy, sys\n"
        f"sys.argv = ['games.verify', {str(path)!r}]\n"
        "try:\n"
        "    runpy.run_module('games.verify', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    code = exit.code\n"
        "print('DJANGO', sorted(m for m in sys.modules if m.split('.')[0] == 'django'))\n"
        "print('EXIT', code)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "DJANGO []" in done.stdout and "EXIT 0" in done.stdout


# --- manage.py verify_match ------------------------------------------------------------------


def test_verify_match_command(played, capsys):
    call_command("verify_match", played["match"])
    assert capsys.readouterr().out.startswith(f"OK: gops match {played['match']}")


def test_verify_match_command_writes_the_transcript(played, tmp_path):
    out = tmp_path / "transcript.json"
    call_command("verify_match", played["match"], output=str(out))
    assert json.loads(out.read_text()) == played


def test_verify_match_command_fails_on_tampered_rows(played):
    from games.models import Move

    row = Move.objects.get(match_id=played["match"], step=2, seat=0)
    row.payload = {"card": 9}
    row.save(update_fields=["payload"])
    with pytest.raises(CommandError) as caught:
        call_command("verify_match", played["match"])
    assert 'step 2 seat 0: receipt digest does not match the move {"card": 9}' in str(caught.value)


def test_verify_match_command_refuses_unfinished_and_unknown(alice, bob):
    match_id = start_match("gops", [alice, bob])
    with pytest.raises(CommandError, match="match_not_finished"):
        call_command("verify_match", match_id)
    with pytest.raises(CommandError, match="not_found"):
        call_command("verify_match", "00000000-0000-4000-8000-000000000000")
    with pytest.raises(CommandError, match="not_found"):
        call_command("verify_match", "nope")
