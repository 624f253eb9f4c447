"""OpenSpiel's own bots, unmodified, play Facedown GOPS matches through
``facedown_client.openspiel`` against the house expert: its uniform random bot, and a policy bot
of a CFR policy solved at 4 cards; replaying each match in OpenSpiel gives Facedown's final
points. A match goofspiel cannot play (another tie rule) is refused with the reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from facedown_client import Client, run

from tests.clients.house import match_against_house_bot

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel (the dev extra) is not installed")

from facedown_client.openspiel import OpenSpielBot, goofspiel, replay  # noqa: E402

pytestmark = pytest.mark.usefixtures("transactional_db")

CARDS = 4
OPTIONS = {"num_cards": CARDS, "tie_rule": "discard"}


class TurnBasedPolicyBot(pyspiel.Bot):  # type: ignore[misc]
    """A policy solved on ``convert_to_turn_based(goofspiel)`` played in goofspiel itself:
    each of its simultaneous states is looked up through the turn-based game, where player 0
    bids first and player 1 then bids without seeing it."""

    def __init__(self, game: Any, seat: int, policy: Any, seed: int) -> None:
        pyspiel.Bot.__init__(self)
        self.turn_based = pyspiel.convert_to_turn_based(game)
        self.seat, self.policy = seat, policy
        self.rng = __import__("random").Random(seed)
        self.history: list[Any] = []

    def restart_at(self, state: Any) -> None:
        self.history = []

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass  # the state carries what is needed

    def step(self, state: Any) -> int:
        mirrored = self.turn_based.new_initial_state()
        for step in state.full_history():
            mirrored.apply_action(step.action)
        if self.seat == 1:  # player 0's bid, hidden from player 1's information state
            mirrored.apply_action(mirrored.legal_actions()[0])
        assert mirrored.current_player() == self.seat
        actions, weights = zip(*self.policy.get_state_policy(mirrored), strict=True)
        return int(self.rng.choices(actions, weights=weights)[0])


def _play(client: Client, bot: OpenSpielBot) -> dict[str, Any]:
    match_id = match_against_house_bot(client, "gops", "expert", OPTIONS)
    report = run(client, bot, max_matches=1, timeout=40, read_timeout=10, handle_signals=False)
    assert not report.timed_out and report.finished == [match_id] and not report.failed
    final = client.matches.get(match_id)
    you, history = final["you"], final["view"]["history"]
    assert final["status"] == "finished" and len(history) == CARDS
    # The bot's moves are its OpenSpiel actions, card = action + 1 (the last is forced).
    assert [turn["bids"][you] for turn in history[: CARDS - 1]] == [
        a + 1 for a in bot.actions[match_id]
    ]
    state = replay(goofspiel(CARDS), history)
    assert state.is_terminal()
    assert [int(points) for points in state.returns()] == final["result"]["scores"]
    return final


def test_openspiel_uniform_random_bot_plays_a_match(registered: Callable[[], Client]) -> None:
    bot = OpenSpielBot(lambda game, seat: pyspiel.make_uniform_random_bot(seat, 20261207))
    _play(registered(), bot)


def test_a_cfr_policy_bot_plays_a_match(registered: Callable[[], Client]) -> None:
    solver = pyspiel.CFRSolver(pyspiel.convert_to_turn_based(goofspiel(CARDS)))
    for _ in range(20):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    bot = OpenSpielBot(lambda game, seat: TurnBasedPolicyBot(game, seat, policy, seed=7))
    _play(registered(), bot)


def test_a_match_goofspiel_cannot_play_is_refused(registered: Callable[[], Client]) -> None:
    client = registered()
    bot = OpenSpielBot(lambda game, seat: pyspiel.make_uniform_random_bot(seat, 1))
    assert bot.accept({"game": "gops", "options": {"tie_rule": "penguin"}}) == "variant"
    assert bot.accept({"game": "gops", "options": {"tie_rule": "discard"}, "seats": 2}) is True
    match_id = match_against_house_bot(
        client, "gops", "random", {"num_cards": 3, "tie_rule": "carry"}
    )
    report = run(client, bot, max_matches=1, timeout=30, handle_signals=False)
    assert "tie_rule 'carry' is not goofspiel's rule" in report.failed[match_id]
    assert report.resigned == [match_id]
