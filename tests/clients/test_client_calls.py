"""The client's calls against the real server: log in, invite and join, moves retried under
the same Idempotency-Key after a lost answer, and the commit-reveal helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from facedown_client import ApiError, Bot, Client, SeatView, run
from facedown_client.types import Move

from tests.clients.conftest import PASSWORD
from tests.clients.house import match_against_house_bot

pytestmark = pytest.mark.usefixtures("transactional_db")


class LosesFirstMoveAnswer(httpx.HTTPTransport):
    """Sends every request to the server, but drops the answer of the first move as a broken
    connection would: the server has applied the move, the client never hears of it."""

    def __init__(self) -> None:
        super().__init__()
        self.move_keys: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "POST" and request.url.path.endswith("/moves"):
            self.move_keys.append(request.headers["Idempotency-Key"])
            if len(self.move_keys) == 1:
                response.read()
                response.close()
                raise httpx.ReadError("connection lost", request=request)
        return response


def test_log_in_invite_join_and_a_retried_move(
    server: str, registered: Callable[[], Client]
) -> None:
    alice, bob = registered(), registered()
    bob_name = bob.account.get()["username"]
    transport = LosesFirstMoveAnswer()
    again = Client(server, transport=transport)
    token = again.login(alice.account.get()["username"], PASSWORD)
    assert token["token"] and again.account.get()["username"] == alice.account.get()["username"]

    assert "gops" in {game["slug"] for game in again.games.list()}
    created = again.matches.create("gops", ["me", {"user": bob_name}], options={"num_cards": 3})
    match_id = created["id"]
    assert [m["id"] for m in bob.matches.list(invited=True)["results"]] == [match_id]
    assert bob.matches.join(match_id, client_seed="bobs-entropy")["status"] == "active"

    first = again.move(match_id, {"card": 2})  # answer lost once, sent again with the same key
    assert transport.move_keys[0] == transport.move_keys[1] and len(transport.move_keys) == 2
    assert [m["id"] for m in bob.matches.awaiting_me()] == [match_id]
    with pytest.raises(ApiError) as refused:
        again.move(match_id, {"card": 3}, step=1)
    assert refused.value.code == "already_submitted"
    second = bob.move(match_id, {"card": 1}, step=1)
    key = bob.fairness_key()
    assert again.verify_receipt(first["receipt"], key) and bob.verify_receipt(second["receipt"])
    resolved = [e for e in bob.matches.events(match_id)["results"] if e["type"] == "step_resolved"]
    assert resolved[0]["data"]["bids"] == [2, 1]
    again.close()


def test_commit_and_reveal_between_two_players(registered: Callable[[], Client]) -> None:
    alice, bob = registered(), registered()
    created = alice.matches.create(
        "gops", ["me", {"user": bob.account.get()["username"]}], options={"num_cards": 3},
        protocol="commit-reveal",
    )  # fmt: skip
    match_id = created["id"]
    bob.matches.join(match_id)
    commitments = [alice.commit(match_id, {"card": 3}), bob.commit(match_id, {"card": 1})]
    assert alice.matches.get(match_id)["phase"]["kind"] == "reveal"
    answers = [alice.reveal(commitments[0]), bob.reveal(commitments[1])]
    assert [a["receipt"]["kind"] for a in answers] == ["reveal", "reveal"]
    key = alice.fairness_key()
    receipts = [c.answer["receipt"] for c in commitments] + [a["receipt"] for a in answers]
    assert all(alice.verify_receipt(receipt, key) for receipt in receipts)
    turn = alice.matches.get(match_id)["view"]["history"][0]
    assert turn["bids"] == [3, 1] and turn["winner"] == 0


class FirstCardBot(Bot):
    def choose(self, view: SeatView) -> Move:
        return view.legal_moves[0]


def test_the_bot_framework_commits_and_reveals(registered: Callable[[], Client]) -> None:
    client = registered()
    # A house bot plays plain moves; the bot's own seat commits, then reveals.
    created = client.matches.create(
        "gops", ["me", {"bot": "greedy"}], options={"num_cards": 4}, protocol="commit-reveal",
        rated=False,
    )  # fmt: skip
    report = run(client, FirstCardBot(), max_matches=1, timeout=40, read_timeout=10)
    assert report.finished == [created["id"]]
    kinds = [answer["receipt"].get("kind") for answer in report.moves]
    assert kinds == ["commitment", "reveal"] * 3  # the fourth card is forced
    assert client.matches.get(created["id"])["status"] == "finished"


class CutStream(httpx.SyncByteStream):
    """The body of a stream that breaks after its first chunk, as a dropped connection does."""

    def __init__(self, inner: httpx.SyncByteStream) -> None:
        self.inner = inner

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            yield chunk
            raise httpx.ReadError("connection lost")

    def close(self) -> None:
        self.inner.close()


class CutsFirstAccountStream(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.opens: list[str | None] = []  # each open's Last-Event-ID

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if not request.url.path.endswith("/accounts/me/stream"):
            return response
        self.opens.append(request.headers.get("Last-Event-ID"))
        if len(self.opens) > 1:
            return response
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=CutStream(response.stream),
            extensions=response.extensions,
        )


def test_the_bot_reconnects_when_its_stream_breaks(
    server: str, registered: Callable[[], Client]
) -> None:
    client = registered()
    transport = CutsFirstAccountStream()
    bot_client = Client(server, client.token, transport=transport)
    match_id = match_against_house_bot(client, "gops", "expert", {"num_cards": 4})
    report = run(bot_client, FirstCardBot(), max_matches=1, timeout=30, read_timeout=10)
    assert report.finished == [match_id] and report.reconnects >= 1
    assert len(transport.opens) == report.reconnects + 1
    assert len(report.moves) == 3  # nothing played twice after the reconnect
    bot_client.close()
