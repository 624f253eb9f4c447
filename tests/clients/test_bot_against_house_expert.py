"""A bot written with the client plays GOPS and Hols der Geier against the house ``expert`` to
the end, only through the API and the streams, and every receipt it holds, and every receipt
of the audit transcript, verifies with the client's own code against ``/fairness/key``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from facedown_client import Bot, Client, SeatView, StreamItem, run
from facedown_client.types import Move

from tests.clients.house import match_against_house_bot

pytestmark = pytest.mark.usefixtures("transactional_db")


class PotValueBot(Bot):
    """Bids the card whose value is nearest the pot's (in absolute value: Hols der Geier's
    vultures are worth fighting for as much as its mice)."""

    def choose(self, view: SeatView) -> Move:
        pot = sum(abs(card) for card in view.view["pot"])
        return min(view.legal_moves, key=lambda move: (abs(move["card"] - pot), move["card"]))


def _follow(client: Client, match_id: str, seen: list[StreamItem]) -> threading.Thread:
    """Reads the match stream on a thread until the match finishes."""

    def read() -> None:
        for item in client.matches.stream(match_id, read_timeout=30):
            seen.append(item)
            if item.type in ("match_finished", "match_aborted"):
                return

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("game", "options"),
    [("gops", {"num_cards": 7}), ("hols-der-geier", {})],
)
def test_a_client_bot_plays_the_house_expert_to_the_end(
    registered: Callable[[], Client], game: str, options: dict[str, Any]
) -> None:
    client = registered()
    match_id = match_against_house_bot(client, game, "expert", options)
    watcher = Client(client.base_url, client.token)
    seen: list[StreamItem] = []
    following = _follow(watcher, match_id, seen)

    report = run(client, PotValueBot(), max_matches=1, timeout=40, read_timeout=10)

    assert not report.timed_out and report.finished == [match_id]
    final = client.matches.get(match_id)
    assert final["status"] == "finished" and final["result"]
    assert final["result"]["reason"] == "completed"
    # Every step where the bot had a choice got a move and a receipt (the last card is
    # played by the server).
    turns = len(final["view"]["history"])
    assert len(report.moves) == turns - 1
    assert [answer["step"] for answer in report.moves] == list(range(1, turns))

    key = client.fairness_key()
    assert all(client.verify_receipt(answer["receipt"], key) for answer in report.moves)
    transcript = client.matches.audit(match_id)
    receipts = [r for step in transcript["steps"] for r in step["receipts"] if r is not None]
    assert len(receipts) == 2 * (turns - 1)  # the bot's and the expert's
    assert all(client.verify_receipt(receipt, key) for receipt in receipts)
    ours = [step["receipts"][final["you"]] for step in transcript["steps"][: turns - 1]]
    assert ours == [answer["receipt"] for answer in report.moves]
    forged = dict(receipts[0], seat=1 - receipts[0]["seat"])
    assert not client.verify_receipt(forged, key)

    following.join(10)
    watcher.close()
    assert seen[0].type == "snapshot" and seen[-1].type == "match_finished"
    seqs = [int(item.id) for item in seen[1:] if item.id is not None]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # dense: nothing lost
    resolved = [item for item in seen if item.type == "step_resolved"]
    assert [item.data["data"]["bids"] for item in resolved] == [
        turn["bids"] for turn in final["view"]["history"][-len(resolved) :]
    ]
