"""What a finished match reads like: the view says over, match_finished names the step the
match ended in, and submission times appear once (and only once) the match is over."""

from __future__ import annotations

from tests.players import play_to_end, start_match


def _events(player, match_id):
    return player.events(match_id)["results"]


def test_a_resigned_match_reads_as_over(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    alice.move(match_id, 1, {"card": 3})
    bob.move(match_id, 1, {"card": 2})
    alice.move(match_id, 2, {"card": 5})
    during = _events(bob, match_id)
    submitted = [e for e in during if e["type"] == "move_submitted"]
    assert submitted and all(e["at"] is None for e in submitted)  # hidden during play

    assert alice.post(f"/matches/{match_id}/resign").status_code == 200
    for player in (alice, bob):
        seen = player.match(match_id)
        assert seen["status"] == "finished" and seen["view"]["over"] is True
    events = _events(bob, match_id)
    finished = [e for e in events if e["type"] == "match_finished"]
    forfeited = [e for e in events if e["type"] == "seat_forfeited"]
    assert finished[0]["step"] == forfeited[0]["step"] == 2
    assert all(e["at"] is not None for e in events if e["type"] == "move_submitted")
    assert all(e["at"] is not None for e in events)


def test_match_finished_names_the_last_step_resolved(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    over = play_to_end(match_id, [alice, bob])
    assert over["status"] == "finished" and over["view"]["over"] is True
    events = _events(alice, match_id)
    last_resolved = max(e["step"] for e in events if e["type"] == "step_resolved")
    assert last_resolved == 4
    (finished,) = [e for e in events if e["type"] == "match_finished"]
    assert finished["step"] == last_resolved
    assert all(e["at"] is not None for e in events)
