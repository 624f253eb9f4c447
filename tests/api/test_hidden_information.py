"""Hidden information never reaches a client that may not know it (docs/design.md, "Disclosure").

Viewers: the other seats and a spectator (an authenticated user without a seat). The strongest
checks compare *alternative histories* of one match (``tests.leaks.alternatives``: the same
match, each variant in a rolled-back savepoint), so every answer must be byte-for-byte equal
whatever the hidden value was, ETags and timestamps included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.leaks import (
    RECEIPT_KEYS,
    alternatives,
    keys_in,
    problem,
    reading,
    shuffled_state,
    state_of,
    state_set,
)
from tests.players import Player, play_to_end, start_match

GAMES = ["gops", "hols-der-geier"]


@pytest.fixture
def dave(player: Callable[..., Player]) -> Player:
    """A spectator: authenticated, holds no seat."""
    return player("dave")


def play_step(match_id: str, players: list[Player], cards: list[int]) -> None:
    step = players[0].match(match_id)["step"]
    for seat, (who, card) in enumerate(zip(players, cards, strict=True)):
        answer = who.move(match_id, step, {"card": card})
        assert answer.status_code == 202, (seat, answer.content)


def play_steps(match_id: str, players: list[Player], count: int) -> None:
    """``count`` steps, every seat playing a legal card chosen by its seat index."""
    for _ in range(count):
        for seat, who in enumerate(players):
            seen = who.match(match_id)
            if seen["status"] != "active":
                return
            legal = seen["legal_moves"]
            pick = legal[(seat * 3 + seen["step"]) % len(legal)]
            answer = who.move(match_id, seen["step"], pick)
            assert answer.status_code == 202, answer.content


def events_by_step(viewer: Player, match_id: str, after: int = 0) -> dict[int, Any]:
    """``step_resolved`` data by step, as ``viewer`` reads it."""
    body = viewer.events(match_id, after)
    return {e["step"]: e["data"] for e in body["results"] if e["type"] == "step_resolved"}


def assert_dense(viewers: list[Player], match_id: str) -> None:
    """Every viewer sees the same dense sequence of events (only ``data`` may be redacted)."""
    skeletons = []
    for viewer in viewers:
        body = viewer.events(match_id)
        seqs = [e["seq"] for e in body["results"]]
        assert seqs == list(range(1, body["last_seq"] + 1))
        skeletons.append([(e["seq"], e["type"], e["step"], e["at"]) for e in body["results"]])
    assert all(skeleton == skeletons[0] for skeleton in skeletons)


# --- 1, 2, 7: a submitted card changes nothing another seat or a spectator reads -----------------


WORLD_CASES = [
    ("gops", {}),
    ("hols-der-geier", {}),
    ("hols-der-geier", {"history": "table_only"}),
]


@pytest.mark.parametrize("disclose", [True, False], ids=["disclosed", "undisclosed"])
@pytest.mark.parametrize(
    ("game", "options"), WORLD_CASES, ids=["gops", "hols-der-geier", "hols-table-only"]
)
def test_which_card_was_submitted_is_invisible_to_others(
    game: str,
    options: dict[str, Any],
    disclose: bool,
    alice: Player,
    bob: Player,
    carol: Player,
    dave: Player,
) -> None:
    match_id = start_match(game, [alice, bob, carol], options=options, disclose_submitted=disclose)
    play_step(match_id, [alice, bob, carol], [1, 2, 3])
    assert bob.move(match_id, 2, {"card": 5}).status_code == 202
    others = {"bob": bob, "carol": carol, "dave": dave}
    before = {name: viewer.get(f"/matches/{match_id}")["ETag"] for name, viewer in others.items()}
    alice_before = alice.match(match_id)
    alice_etag = alice.get(f"/matches/{match_id}")["ETag"]

    def world(card: int | None) -> Callable[[], dict[str, Any]]:
        def run() -> dict[str, Any]:
            if card is not None:
                assert alice.move(match_id, 2, {"card": card}).status_code == 202
            seen: dict[str, Any] = {
                name: reading(viewer, match_id, old_etag=before[name])
                for name, viewer in others.items()
            }
            # Errors the other seats and the spectator can provoke without changing anything.
            seen["errors"] = {
                "bob_different_move": problem(bob.move(match_id, 2, {"card": 6})),
                "bob_repeat": problem(bob.move(match_id, 2, {"card": 5})),
                "bob_stale": problem(bob.move(match_id, 1, {"card": 5})),
                "carol_spent_card": problem(carol.move(match_id, 2, {"card": 3})),
                "carol_no_such_card": problem(carol.move(match_id, 2, {"card": 99})),
                "carol_bad_card": problem(carol.move(match_id, 2, {"card": "x"})),
                "carol_future_step": problem(carol.move(match_id, 3, {"card": 4})),
                "carol_stale": problem(carol.move(match_id, 1, {"card": 4})),
                "dave_move": problem(dave.move(match_id, 2, {"card": 4})),
            }
            seen["alice"] = (alice.match(match_id), alice.get(f"/matches/{match_id}")["ETag"])
            return seen

        return run

    baseline, seven, nine = alternatives(world(None), world(7), world(9))

    # Which card: never visible to anyone but alice, whatever the disclosure setting.
    for name in [*others, "errors"]:
        assert seven[name] == nine[name], name
    assert seven["errors"]["bob_different_move"][0] == 409
    assert json.loads(seven["errors"]["bob_stale"][2])["recorded"] is True
    assert json.loads(seven["errors"]["carol_stale"][2])["recorded"] is True
    assert json.loads(seven["errors"]["dave_move"][2])["code"] == "not_seated"
    spent = json.loads(seven["errors"]["carol_spent_card"][2])
    assert spent["code"] == "illegal_move"
    assert set(re.findall(r"\d+", spent["detail"])) == {"3"}

    # Alice herself sees her card, and her ETag changes.
    alice_after, alice_etag_after = seven["alice"]
    assert alice_after["phase"]["your_move"] == {"card": 7}
    assert alice_after["legal_moves"] == []
    assert alice_etag_after != alice_etag
    assert alice_before["phase"]["your_move"] is None

    if not disclose:
        # Nothing another seat or a spectator reads changes at all.
        for name in [*others, "errors"]:
            assert seven[name] == baseline[name], name
        for name in others:
            assert seven[name]["if_none_match"][0] == 304
        # Alice sees her own submission only, not bob's (also undisclosed).
        assert alice_after["phase"]["submitted"] == [0]
        assert alice_after["version"] == alice_before["version"]
        return

    # Disclosed: exactly one public change, a move_submitted event naming the seat only.
    for name in others:
        old, new = baseline[name], seven[name]
        old_match, new_match = json.loads(old["match"]), json.loads(new["match"])
        assert new_match["version"] == old_match["version"] + 1
        assert old_match["phase"]["submitted"] == [1]
        assert new_match["phase"]["submitted"] == [0, 1]
        for body in (old_match, new_match):
            del body["version"], body["phase"]["submitted"]
        assert new_match == old_match
        assert new["if_none_match"][0] == 200
        assert new["etag"] != old["etag"]
        old_events, new_events = json.loads(old["events"][0]), json.loads(new["events"][0])
        assert new_events["last_seq"] == old_events["last_seq"] + 1
        assert new_events["results"][:-1] == old_events["results"]
        assert new_events["results"][-1] == {
            "seq": new_events["last_seq"],
            "type": "move_submitted",
            "step": 2,
            "at": None,
            "data": {"seat": 0},
        }


@pytest.mark.parametrize("game", GAMES)
def test_undisclosed_submission_keeps_others_etag_and_feed(
    game: str, alice: Player, bob: Player, dave: Player
) -> None:
    match_id = start_match(game, [alice, bob], disclose_submitted=False)
    old = {who.name: who.get(f"/matches/{match_id}") for who in (alice, bob, dave)}
    feeds = {who.name: who.events(match_id) for who in (bob, dave)}
    card = alice.match(match_id)["legal_moves"][-1]
    assert alice.move(match_id, 1, card).status_code == 202

    for who in (bob, dave):
        cached = who.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=old[who.name]["ETag"])
        assert cached.status_code == 304
        assert cached["ETag"] == old[who.name]["ETag"]
        fresh = who.get(f"/matches/{match_id}")
        assert fresh.content == old[who.name].content
        assert who.events(match_id) == feeds[who.name]
        assert who.events(match_id, feeds[who.name]["last_seq"])["results"] == []
    mine = alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=old["alice"]["ETag"])
    assert mine.status_code == 200
    assert mine["ETag"] != old["alice"]["ETag"]
    assert mine.json()["phase"]["submitted"] == [0]
    assert mine.json()["phase"]["your_move"] == card
    assert mine.json()["version"] == old["alice"].json()["version"]


# --- 3: the prize order is never visible -------------------------------------------------------

SHUFFLE_CASES: list[tuple[str, int, dict[str, Any], list[int]]] = [
    ("gops", 2, {}, [0, 3, 7]),
    ("gops", 3, {"num_cards": 8}, [0, 4]),
    ("hols-der-geier", 3, {}, [0, 5]),
    ("hols-der-geier", 3, {"history": "table_only", "deals": 2}, [0, 3, 13]),
    ("hols-der-geier", 2, {"deals": 2}, [0, 4, 9]),  # two-player variant
]


@pytest.mark.parametrize(
    ("game", "seats", "options", "checkpoints"),
    SHUFFLE_CASES,
    ids=[f"{g}-{n}p-{'-'.join(o) or 'default'}" for g, n, o, _ in SHUFFLE_CASES],
)
def test_views_do_not_depend_on_hidden_state(
    game: str,
    seats: int,
    options: dict[str, Any],
    checkpoints: list[int],
    alice: Player,
    bob: Player,
    carol: Player,
    dave: Player,
) -> None:
    """Redraw everything hidden from a viewer (engine.shuffle_hidden) straight in the database:
    every answer that viewer gets must stay identical."""
    players = [alice, bob, carol][:seats]
    match_id = start_match(game, players, options=options)
    played = 0
    redrawn = 0
    for checkpoint in checkpoints:
        play_steps(match_id, players, checkpoint - played)
        played = checkpoint
        original_state = state_of(match_id)
        for seat, viewer in [*enumerate(players), (None, dave)]:
            answer = viewer.get(f"/matches/{match_id}")
            view = answer.json()["view"]
            assert view["remaining_prizes"] == sorted(view["remaining_prizes"])
            for salt in range(1, 4):
                hidden = shuffled_state(match_id, seat, salt + 10 * checkpoint)
                redrawn += hidden != original_state
                state_set(match_id, hidden)
                again = viewer.get(f"/matches/{match_id}")
                assert again.content == answer.content, (checkpoint, seat, salt)
                assert again["ETag"] == answer["ETag"]
            state_set(match_id, original_state)
    assert redrawn > 0, "shuffle_hidden never changed anything: the test proves nothing"


def test_gops_prize_order_is_not_in_the_view(alice: Player, bob: Player, dave: Player) -> None:
    """Three stock orders behind the same first prize: identical answers for every viewer."""
    match_id = start_match("gops", [alice, bob])
    state = state_of(match_id)
    orders = [sorted(state["stock"]), sorted(state["stock"], reverse=True), state["stock"]]

    def with_stock(stock: list[int]) -> Callable[[], list[bytes]]:
        def run() -> list[bytes]:
            state_set(match_id, {**state, "stock": stock})
            return [who.get(f"/matches/{match_id}").content for who in (alice, bob, dave)]

        return run

    answers = alternatives(*(with_stock(order) for order in orders))
    assert answers[0] == answers[1] == answers[2]
    for body in answers[0]:
        view = json.loads(body)["view"]
        assert view["remaining_prizes"] == sorted(state["stock"])


# --- 4: receipts are the submitter's alone -----------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_receipts_are_visible_only_to_their_seat(
    game: str, alice: Player, bob: Player, dave: Player
) -> None:
    match_id = start_match(game, [alice, bob])
    digests: list[str] = []

    def assert_hidden_from(viewers: list[Player], owner_digests: list[str]) -> None:
        for viewer in viewers:
            for path in (f"/matches/{match_id}", f"/matches/{match_id}/events", "/matches"):
                body = viewer.get(path)
                assert not keys_in(body.json()) & RECEIPT_KEYS, (viewer.name, path)
                for digest in owner_digests:
                    assert digest not in body.content.decode(), (viewer.name, path)

    first = alice.match(match_id)["legal_moves"][0]
    answer = alice.move(match_id, 1, first)
    assert answer.status_code == 202
    receipt = answer.json()["receipt"]
    assert receipt["seat"] == 0
    digests.append(receipt["digest"])
    assert_hidden_from([bob, dave], digests)

    repeat = alice.move(match_id, 1, first)
    assert repeat.status_code == 200
    assert repeat.json()["receipt"] == receipt

    bob_card = bob.match(match_id)["legal_moves"][0]
    bob_answer = bob.move(match_id, 1, bob_card)
    assert bob_answer.json()["receipt"]["seat"] == 1
    assert_hidden_from([dave], [receipt["digest"], bob_answer.json()["receipt"]["digest"]])
    assert_hidden_from([bob], digests)
    assert_hidden_from([alice], [bob_answer.json()["receipt"]["digest"]])

    play_to_end(match_id, [alice, bob])
    assert_hidden_from([bob, dave], digests)


# --- 5: Hols der Geier, history: table_only ----------------------------------------------------


def test_table_only_history_reads(alice: Player, bob: Player, carol: Player, dave: Player) -> None:
    players = [alice, bob, carol]
    match_id = start_match("hols-der-geier", players, options={"history": "table_only"})
    viewers = [*players, dave]
    play_step(match_id, players, [1, 2, 3])

    for seat, viewer in [*enumerate(players), (None, dave)]:
        body = viewer.match(match_id)
        view = body["view"]
        assert view["history"] == []
        assert view["history_mode"] == "table_only"
        assert view["piles"] == [1, 2, 3]
        assert "bids" not in keys_in(view)
        assert ("hand" in view) == (seat is not None)
        assert "hands" not in view
        if seat is not None:
            assert 1 + seat not in view["hand"]
        # Step 1 resolved: its bids are readable by everyone for now.
        assert events_by_step(viewer, match_id)[1]["bids"] == [1, 2, 3]

    # Alice's next move ends her reading of step 1; the others still read it.
    assert alice.move(match_id, 2, {"card": 4}).status_code == 202
    assert events_by_step(alice, match_id)[1] is None
    assert events_by_step(alice, match_id, after=1)[1] is None
    for viewer in (bob, carol, dave):
        assert events_by_step(viewer, match_id)[1]["bids"] == [1, 2, 3]
    assert_dense(viewers, match_id)

    # Step 2 resolves: step 1 is gone for everyone, step 2 readable until each one's next move.
    assert bob.move(match_id, 2, {"card": 5}).status_code == 202
    assert events_by_step(bob, match_id)[1] is None
    assert events_by_step(carol, match_id)[1] is not None
    assert carol.move(match_id, 2, {"card": 6}).status_code == 202
    for viewer in viewers:
        resolved = events_by_step(viewer, match_id)
        assert resolved[1] is None, viewer.name
        assert resolved[2]["bids"] == [4, 5, 6], viewer.name
        assert viewer.match(match_id)["view"]["piles"] == [4, 5, 6]
    assert_dense(viewers, match_id)

    # A spectator reads step 2 until step 3 resolves, not longer.
    play_step(match_id, players, [7, 8, 9])
    assert events_by_step(dave, match_id)[2] is None
    assert events_by_step(dave, match_id)[3]["bids"] == [7, 8, 9]
    assert_dense(viewers, match_id)

    # Over: every event is readable again by everyone (the project's choice, see reads.py).
    final = play_to_end(match_id, players)
    assert final["status"] == "finished"
    assert_dense(viewers, match_id)
    feeds = [viewer.events(match_id)["results"] for viewer in (bob, carol, dave)]
    assert feeds[0] == feeds[1] == feeds[2]
    resolved = events_by_step(dave, match_id)
    assert len(resolved) == 15
    assert all(data is not None for data in resolved.values())
    assert resolved[1]["bids"] == [1, 2, 3]


# --- 6: the Hols der Geier two-player variant --------------------------------------------------


def test_two_player_variant_removed_cards(alice: Player, bob: Player, dave: Player) -> None:
    match_id = start_match("hols-der-geier", [alice, bob], options={"deals": 2})
    state = state_of(match_id)
    assert state["variant"] is True
    everything = set(range(1, 16))

    views = {who.name: who.match(match_id)["view"] for who in (alice, bob, dave)}
    for seat, who in enumerate((alice, bob)):
        view = views[who.name]
        assert view["removed_bids"] == state["removed_bids"][seat]
        assert len(view["removed_bids"]) == 3
        assert view["hand"] == sorted(everything - set(view["removed_bids"]))
    assert "removed_bids" not in views["dave"]
    assert "hand" not in views["dave"]
    for view in views.values():
        assert view["two_player_variant"] is True
        assert view["removed_prizes"] == 3
        assert view["turns"] == 12
        assert view["remaining_prizes"] == sorted(state["stock"] + state["removed_points"])
        assert len(view["remaining_prizes"]) == 14
        assert "removed_points" not in keys_in(view)

    # The removed cards are nowhere else either (keys), and no body names them by key.
    for who in (alice, bob, dave):
        feed = who.events(match_id)
        assert not keys_in(feed) & {"removed_bids", "removed_points", "stock", "future"}
        assert "future" not in keys_in(who.match(match_id))
        assert "stock" not in keys_in(who.match(match_id))

    # An illegal move names only the requester's own card.
    own_removed = state["removed_bids"][0][0]
    refused = alice.move(match_id, 1, {"card": own_removed})
    assert refused.status_code == 400
    assert refused.json()["code"] == "illegal_move"
    assert re.findall(r"\d+", refused.json()["detail"]) == [str(own_removed)]
    assert set(refused.json()) == {"type", "title", "status", "detail", "code"}

    # The end of deal 1 tells each seat its new removed cards, privately.
    for _ in range(12):
        play_steps(match_id, [alice, bob], 1)
    second = state_of(match_id)
    assert second["deal"] == 2
    for seat, who in enumerate((alice, bob)):
        data = events_by_step(who, match_id)[12]
        assert data["removed_bids"] == second["removed_bids"][seat]
        assert who.match(match_id)["view"]["removed_bids"] == second["removed_bids"][seat]
    assert "removed_bids" not in events_by_step(dave, match_id)[12]
    assert "removed_bids" not in dave.match(match_id)["view"]


# --- 7: errors name only the requester's own data ----------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_stale_step_reports_only_the_requesters_seat(
    game: str, alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match(game, [alice, bob, carol])
    play_step(match_id, [alice, bob, carol], [4, 5, 6])
    for who, card in ((alice, 4), (bob, 9), (carol, 1)):
        stale = who.move(match_id, 1, {"card": card})
        assert stale.status_code == 409
        assert stale["Content-Type"] == "application/problem+json"
        body = stale.json()
        assert body["code"] == "stale_step"
        assert body["recorded"] is True
        assert set(body) == {"type", "title", "status", "detail", "code", "recorded"}
        assert re.findall(r"\d+", body["detail"]) == ["1"]
    # Alice's next card is refused with her own card only, never another seat's.
    spent = alice.move(match_id, 2, {"card": 4})
    assert spent.json()["code"] == "illegal_move"
    assert re.findall(r"\d+", spent.json()["detail"]) == ["4"]
    # Bob submits; a different second move is refused without echoing either card.
    assert bob.move(match_id, 2, {"card": 7}).status_code == 202
    again = bob.move(match_id, 2, {"card": 8})
    assert again.json()["code"] == "already_submitted"
    assert not re.findall(r"\d+", again.json()["detail"])
    assert set(again.json()) == {"type", "title", "status", "detail", "code"}


# --- 8: the spectator view ---------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_spectator_view(game: str, alice: Player, bob: Player, dave: Player) -> None:
    match_id = start_match(game, [alice, bob])
    for _ in range(2):
        body = dave.match(match_id)
        assert body["you"] is None
        assert body["legal_moves"] == []
        assert body["phase"]["your_move"] is None
        assert "hand" not in body["view"]
        assert "removed_bids" not in body["view"]
        assert not keys_in(body) & RECEIPT_KEYS
        play_steps(match_id, [alice, bob], 1)
    refused = dave.move(match_id, body["step"], {"card": 1})
    assert refused.status_code == 403
    assert refused.json()["code"] == "not_seated"
    final = play_to_end(match_id, [alice, bob])
    assert final["status"] == "finished"
    body = dave.match(match_id)
    assert body["you"] is None
    assert body["legal_moves"] == []
    assert "hand" not in body["view"]
