"""Simultaneous submissions from real threads on the real PostgreSQL.

Every thread has its own ``APIClient`` and its own database connection (closed when the thread
ends); a ``threading.Barrier`` releases the racing requests at the same instant.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from accounts.tokens import token_issue
from games.models import Match, MatchEvent, Move
from tests.players import API, Player, make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

STEPS = 3
JOIN_SECONDS = 30


class Answer:
    """What a thread saw: status and parsed body (read inside the thread)."""

    def __init__(self, response: Any) -> None:
        self.status: int = response.status_code
        self.body: Any = response.json() if response.content else None

    @property
    def code(self) -> str | None:
        return self.body.get("code") if isinstance(self.body, dict) else None

    def __repr__(self) -> str:
        return f"<{self.status} {self.body}>"


def canonical(value: Any) -> str:
    """JSON with sorted keys: a replayed body comes from jsonb, whose key order differs."""
    return json.dumps(value, sort_keys=True)


def _client(player: Player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
    return client


def together(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads released by one barrier; their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=JOIN_SECONDS)
            results[index] = calls[index]()
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_SECONDS)
    assert not any(thread.is_alive() for thread in threads), "a racing call hung"
    if errors:
        raise errors[0]
    return results


def race(requests: list[Callable[[APIClient], Any]], players: list[Player]) -> list[Answer]:
    """Send ``requests[i]`` as ``players[i]``, all released by one barrier; answers in order."""
    assert len(requests) == len(players)
    clients = [_client(player) for player in players]
    return together(
        *(
            partial(lambda send, client: Answer(send(client)), send, client)
            for send, client in zip(requests, clients, strict=True)
        )
    )


def move_request(
    match_id: str, step: int, move: dict[str, Any], key: str | None = None
) -> Callable[[APIClient], Any]:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}

    def send(client: APIClient) -> Any:
        body = {"step": step, "move": move}
        return client.post(f"{API}/matches/{match_id}/moves", body, format="json", **headers)

    return send


def assert_consistent(match_id: str, *, resolved_steps: int, seats: int) -> None:
    """Each resolved step: resolved exactly once, one move per seat; events dense and unique."""
    match = Match.objects.get(pk=match_id)
    assert match.step == resolved_steps + 1
    resolutions = Counter(
        MatchEvent.objects.filter(match=match, type="step_resolved").values_list("step", flat=True)
    )
    assert resolutions == {step: 1 for step in range(1, resolved_steps + 1)}
    per_step = Counter(Move.objects.filter(match=match).values_list("step", flat=True))
    assert per_step == {step: seats for step in range(1, resolved_steps + 1)}
    seqs = list(
        MatchEvent.objects.filter(match=match).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, match.last_seq + 1))
    # … and so the feed every viewer reads: 1..last_seq, no gap.
    creator = match.created_by
    feed = Player(user=creator, token=token_issue(creator, name="tests")[1]).events(match_id)
    assert [event["seq"] for event in feed["results"]] == list(range(1, feed["last_seq"] + 1))
    assert feed["last_seq"] == match.last_seq


def test_two_seats_submit_at_the_same_instant():
    players = [make_player(), make_player()]
    match_id = start_match("gops", players, options={"num_cards": 5})
    for step in range(1, STEPS + 1):
        answers = race([move_request(match_id, step, {"card": step})] * 2, players)
        assert [a.status for a in answers] == [202, 202], answers
        assert [a.body["seat"] for a in answers] == [0, 1]
        assert Move.objects.filter(match_id=match_id, step=step).count() == 2
        assert_consistent(match_id, resolved_steps=step, seats=2)
    assert players[0].match(match_id)["step"] == STEPS + 1


def test_five_seats_submit_at_the_same_instant():
    players = [make_player() for _ in range(5)]
    match_id = start_match("hols-der-geier", players)
    for step in range(1, STEPS + 1):
        answers = race([move_request(match_id, step, {"card": step})] * 5, players)
        assert [a.status for a in answers] == [202] * 5, answers
        assert_consistent(match_id, resolved_steps=step, seats=5)
    history = players[0].match(match_id)["view"]["history"]
    assert [turn["bids"] for turn in history] == [[s] * 5 for s in range(1, STEPS + 1)]


def test_the_last_seat_races_the_others_retries():
    """Four seats have submitted; the fifth submits while the four re-post at the same instant."""
    players = [make_player() for _ in range(5)]
    match_id = start_match("hols-der-geier", players)
    for step in range(1, STEPS + 1):
        receipts = {}
        for seat, player in enumerate(players[:4]):
            answer = player.move(match_id, step, {"card": step})
            assert answer.status_code == 202, answer.content
            receipts[seat] = answer.json()["receipt"]
        answers = race([move_request(match_id, step, {"card": step})] * 5, players)
        assert answers[4].status == 202, answers
        for seat, answer in enumerate(answers[:4]):
            # Before the resolution: the identical re-post; after it: a stale step, recorded.
            if answer.status == 200:
                assert answer.body["receipt"] == receipts[seat]
            else:
                assert (answer.status, answer.code) == (409, "stale_step"), answer
                assert answer.body["recorded"] is True
        assert_consistent(match_id, resolved_steps=step, seats=5)


def test_one_key_sent_by_four_threads_at_once():
    players = [make_player(), make_player()]
    match_id = start_match("gops", players, options={"num_cards": 5})
    for seat, player in enumerate(players):  # seat 1's request resolves the step
        key = f"same-key-{seat}"
        send = move_request(match_id, 1, {"card": 2}, key=key)
        answers = race([send] * 4, [player] * 4)
        accepted = [a for a in answers if a.status == 202]
        assert accepted, answers
        for answer in answers:
            if answer.status != 202:
                assert (answer.status, answer.code) == (409, "idempotency_in_progress"), answer
        assert len({canonical(a.body["receipt"]) for a in accepted}) == 1
        assert Move.objects.filter(match_id=match_id, step=1, seat=seat).count() == 1
        # Once settled, the key replays the one answer.
        replay = player.move(match_id, 1, {"card": 2}, HTTP_IDEMPOTENCY_KEY=key)
        assert replay.status_code == 202
        assert replay.json() == accepted[0].body
    assert_consistent(match_id, resolved_steps=1, seats=2)


def test_the_same_move_without_a_key_from_four_threads():
    players = [make_player(), make_player()]
    match_id = start_match("gops", players, options={"num_cards": 5})
    answers = race([move_request(match_id, 1, {"card": 4})] * 4, [players[0]] * 4)
    assert sorted(a.status for a in answers) == [200, 200, 200, 202], answers
    assert len({canonical(a.body) for a in answers}) == 1  # the original receipt every time
    assert Move.objects.filter(match_id=match_id, step=1).count() == 1
    match = Match.objects.get(pk=match_id)
    assert (match.step, match.submitted) == (1, [0])
    assert MatchEvent.objects.filter(match=match, type="move_submitted").count() == 1


def test_different_moves_from_four_threads_keep_exactly_one():
    players = [make_player(), make_player()]
    match_id = start_match("gops", players, options={"num_cards": 5})
    sends = [move_request(match_id, 1, {"card": card}) for card in (1, 2, 3, 4)]
    answers = race(sends, [players[0]] * 4)
    accepted = [(card, a) for card, a in zip((1, 2, 3, 4), answers, strict=True) if a.status == 202]
    assert len(accepted) == 1, answers
    assert Counter(a.code for a in answers if a.status != 202) == {"already_submitted": 3}
    ((card, winner),) = accepted
    recorded = Move.objects.get(match_id=match_id, step=1, seat=0)
    assert recorded.payload == {"card": card}
    assert recorded.receipt == winner.body["receipt"]


@pytest.mark.parametrize("round_", range(3))
def test_concurrent_joins_all_count_and_the_match_starts_once(round_: int) -> None:
    """Every joiner waits for the match lock; each must see the seats as the one before it left
    them, or the last joiner would not notice that everyone had accepted."""
    host, *guests = [make_player() for _ in range(5)]
    created = host.create("hols-der-geier", ["me", *({"user": g.name} for g in guests)])
    match_id = created.json()["id"]
    answers = race(
        [
            (
                lambda c, g=g: c.post(
                    f"{API}/matches/{match_id}/join",
                    {"client_seed": f"seed-{g.name}"},
                    format="json",
                )
            )
            for g in guests
        ],
        guests,
    )
    assert [a.status for a in answers] == [200] * 4, answers
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.ACTIVE
    seats = list(match.seats.order_by("index"))
    assert all(seat.accepted for seat in seats)
    assert [s.client_seed for s in seats[1:]] == [f"seed-{g.name}" for g in guests]
    started = MatchEvent.objects.filter(match_id=match_id, type="match_started")
    assert started.count() == 1
    assert started.get().data["seats"] == [
        {"index": s.index, "player": s.user.username, "bot": None, "accepted": True} for s in seats
    ]
