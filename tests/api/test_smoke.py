from tests.players import play_to_end, start_match


def test_two_player_gops_plays_to_the_end(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    final = play_to_end(match_id, [alice, bob])
    assert final["status"] == "finished"
    assert final["result"]["reason"] == "completed"
    assert final["fairness"]["seed"] is not None
