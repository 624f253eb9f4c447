"""A match resource's body and its ETag come from one snapshot, even while moves commit.

``GET /matches/{id}`` reads the match, its seats and the engine state in one query. The
resource returned after a create, join or resign (``games.api.matches.match_response``) takes
two (the snapshot, then ``reads.match_state``), and a change may commit between them.

Real threads on the real PostgreSQL: one plays a match to its end through the API while readers
(two seated players and a spectator) read it without pause: through the API, and through the
two-query path with the window between its queries widened by a short pause after the first,
so moves land inside it on every run.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from rest_framework.renderers import JSONRenderer
from rest_framework.test import APIClient

from games import match_store
from games.services import presenters, reads
from tests.players import API, Player, make_player, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CARDS = 8
#: The pause between a read's two queries, in seconds: wide enough for a move to commit in it.
WINDOW = 0.003
READS_PER_VIEWER = 400


@pytest.fixture
def widened_window(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Pause after the snapshot query; count the reads that saw a change land in the gap."""
    query = match_store.snapshot_rows  # the snapshot's one query
    raced: list[int] = []

    def slow_rows(value: Any, *, with_state: bool) -> Any:
        rows = query(value, with_state=with_state)
        time.sleep(WINDOW)
        return rows

    monkeypatch.setattr(match_store, "snapshot_rows", slow_rows)
    original_state = reads.match_state

    def counting_match_state(snapshot: reads.MatchSnapshot) -> Any:
        before = (snapshot.match.version, snapshot.match.submitted_mask)
        state = original_state(snapshot)
        if (snapshot.match.version, snapshot.match.submitted_mask) != before:
            raced.append(1)
        return state

    # The presenters call it by the name they imported.
    monkeypatch.setattr(presenters, "match_state", counting_match_state)
    yield raced


def expected_etag(match_id: str, body: dict[str, Any]) -> str:
    """The ETag the body's own version and submission call for (reads.MatchSnapshot.etag)."""
    you = body["you"]
    own = int(you is not None and you in body["phase"]["submitted"])
    basis = f"{match_id}|{body['version']}|{you}|{own}"
    return '"' + hashlib.sha256(basis.encode()).hexdigest()[:32] + '"'


def _reader(player: Player, match_id: str, stop: threading.Event, out: list[Any]) -> None:
    """Alternately through the API (one query) and the two-query resource path."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
    try:
        for n in range(READS_PER_VIEWER):
            if stop.is_set():
                break
            if n % 2:
                response = client.get(f"{API}/matches/{match_id}")
                out.append((response.status_code, response["ETag"], response.json()))
            else:
                snapshot = reads.match_snapshot(match_id=match_id, user=player.user)
                body = json.loads(JSONRenderer().render(presenters.match_resource(snapshot)))
                out.append((200, snapshot.etag, body))
    finally:
        connection.close()


def _writer(players: list[Player], match_id: str, stop: threading.Event, out: list[Any]) -> None:
    clients = []
    for player in players:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
        clients.append(client)
    try:
        for step in range(1, CARDS):  # the last step is forced: one card left each
            for client in clients:
                body = {"step": step, "move": {"card": CARDS + 1 - step}}
                response = client.post(f"{API}/matches/{match_id}/moves", body, format="json")
                out.append((response.status_code, response.json()))
                time.sleep(WINDOW / 2)
    finally:
        stop.set()
        connection.close()


def test_every_body_matches_its_etag_while_moves_race_the_reads(widened_window) -> None:
    alice, bob, carol = make_player(), make_player(), make_player()
    match_id = start_match("gops", [alice, bob], options={"num_cards": CARDS})
    stop = threading.Event()
    seen: dict[str, list[Any]] = {p.name: [] for p in (alice, bob, carol)}
    moves: list[int] = []
    threads = [
        threading.Thread(target=_reader, args=(p, match_id, stop, seen[p.name]))
        for p in (alice, bob, carol)
    ]
    threads.append(threading.Thread(target=_writer, args=([alice, bob], match_id, stop, moves)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)

    assert [status for status, _ in moves] == [202] * (2 * (CARDS - 1)), moves
    for name, answers in seen.items():
        assert answers, name
        bodies_by_etag: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for status, etag, body in answers:
            assert status == 200, body
            # the ETag names the body's own version and submission
            assert etag == expected_etag(match_id, body), (name, body["version"])
            # the engine state is the one of that version: one history entry per resolved step
            assert len(body["view"]["history"]) == body["step"] - 1 or body["status"] != "active"
            bodies_by_etag[etag].append(body)
        for etag, bodies in bodies_by_etag.items():
            assert all(body == bodies[0] for body in bodies), (name, etag)
    # the race was really run: some reads saw a move commit between their two queries
    assert widened_window, "no read raced a move; widen WINDOW"
    final = alice.match(match_id)
    assert final["status"] == "finished"
