"""A bot account run by the client answers what people send it, by its own rules: it accepts a
GOPS challenge and plays it to the end, declines a Hols der Geier one with a reason, and joins
the match a bulk pairing invites it to."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from facedown_client import Bot, Client, SeatView, run
from facedown_client.types import Challenge, Move

from tests.clients.conftest import PASSWORD

pytestmark = pytest.mark.usefixtures("transactional_db")


class OnlyGops(Bot):
    def choose(self, view: SeatView) -> Move:
        return min(view.legal_moves, key=lambda move: move["card"])

    def accept(self, challenge: Challenge) -> bool | str:
        return challenge["game"] == "gops" or "variant"


def _bot_account(registered: Callable[[], Client]) -> Client:
    client = registered()
    name = client.account.get()["username"]
    client.account.become_bot()  # its tokens end: it logs in again, for a bot:play token
    client.login(name, PASSWORD, name="the bot")
    return client


def test_a_bot_account_answers_challenges_and_invitations(
    registered: Callable[[], Client],
) -> None:
    robot = _bot_account(registered)
    person = registered()
    name = robot.account.get()["username"]
    assert robot.account.get()["bot"] is True
    declined = person.challenges.create("hols-der-geier", to=name)
    accepted = person.challenges.create("gops", to=name, options={"num_cards": 3}, rated=False)
    organiser = registered()
    pairing = [[person.account.get()["username"], name]]
    paired = organiser.challenges.bulk_pairing("gops", pairing, options={"num_cards": 3})

    outcome: dict[str, Any] = {}
    runner = threading.Thread(
        target=lambda: outcome.update(report=run(robot, OnlyGops(), max_matches=2, timeout=40)),
        daemon=True,
    )
    runner.start()
    person.matches.join(paired[0])
    opponent = run(person, OnlyGops(), max_matches=2, timeout=40)
    runner.join(45)
    report = outcome["report"]
    assert not report.timed_out and not opponent.timed_out
    assert report.declined == [declined["id"]] and report.accepted == [accepted["id"]]
    assert report.joined == paired
    assert person.challenges.get(declined["id"])["decline_reason"] == "variant"
    match_id = person.challenges.get(accepted["id"])["match_id"]
    assert sorted(report.finished) == sorted([match_id, paired[0]])
    assert robot.matches.get(match_id)["status"] == "finished"
