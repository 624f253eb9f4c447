"""OpenSpiel's own goofspiel plays a Facedown GOPS match through the client against the house
expert; replaying the same prizes and bids in OpenSpiel gives Facedown's final points."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from facedown_client import Client, run

from tests.clients.house import match_against_house_bot

pytest.importorskip("pyspiel", reason="open_spiel (the dev extra) is not installed")

from tests.clients.openspiel_gops import OpenSpielGopsBot, replay

pytestmark = pytest.mark.usefixtures("transactional_db")

OPTIONS = {"num_cards": 5, "tie_rule": "discard"}


def test_openspiel_goofspiel_plays_a_facedown_match(registered: Callable[[], Client]) -> None:
    client = registered()
    match_id = match_against_house_bot(client, "gops", "expert", OPTIONS)
    bot = OpenSpielGopsBot(num_cards=5, seed=20261122)

    report = run(client, bot, max_matches=1, timeout=40, read_timeout=10)

    assert not report.timed_out and report.finished == [match_id]
    final = client.matches.get(match_id)
    assert final["status"] == "finished" and final["options"]["tie_rule"] == "discard"
    you, history = final["you"], final["view"]["history"]
    assert len(history) == 5
    # The bot's moves are its OpenSpiel actions, card = action + 1 (the fifth is forced).
    assert [turn["bids"][you] for turn in history[:4]] == [a + 1 for a in bot.actions]

    state = replay(bot.game, history)
    assert state.is_terminal()
    assert [int(points) for points in state.returns()] == final["result"]["scores"]
