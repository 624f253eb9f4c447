"""A stream follows its reader's seat: when a seat changes hands while a stream is open, the
stream moves to the channel its reader may read now (docs/live.md, "The match stream"), and
never carries what the seat's next holder may see. Real uvicorn processes, the real Redis bus;
each stream is compared item by item with what ``GET /events`` shows its reader."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission

from games.services.operators import seat_replace_with_bot, seat_return
from tests.live.client import Stream
from tests.live.conftest import Server
from tests.players import Player, make_player

pytestmark = pytest.mark.usefixtures("transactional_db")

#: Every game, with options that give single seats data of their own on the event feed where
#: the game has any (hols' variant: each seat's removed bids at a new deal; old men: each hand at
#: a new game; memory: the flipper's card). Gops and xato show single seats nothing of their own
#: on the feed (hands are in the match resource, undisclosed submissions in no one's feed):
#: their streams must move all the same. ``full`` history: a stream item is then compared with
#: the feed as it reads at the end. The move counts bound each test.
GAMES = [
    ("gops", {}, 2, 8, False),
    ("hols-der-geier", {"two_player_variant": True, "deals": 2, "history": "full"}, 2, 40, True),
    ("xato", {"history": "full"}, 3, 9, False),
    ("old-men-of-the-forest", {"games": 2}, 3, 150, True),
    ("memory", {"flips_visible_to": "flipper", "pairs": 6, "history": "full"}, 2, 30, True),
]


def _open(server: Server, player: Player, match_id: str) -> Stream:
    headers = {"Authorization": f"Token {player.token}"}
    stream = Stream(server.port, f"/api/v1/matches/{match_id}/stream", headers)
    assert stream.status == 200
    (snapshot,) = stream.events(1)
    assert snapshot.type == "snapshot"
    return stream


def _feed(player: Player, match_id: str) -> dict[int, dict[str, Any]]:
    """Every event as ``player`` reads it, page after page."""
    feed: dict[int, dict[str, Any]] = {}
    while True:
        page = player.events(match_id, max(feed, default=0))
        feed |= {e["seq"]: e for e in page["results"]}
        if not page["results"] or max(feed) >= page["last_seq"]:
            return feed


def _carried(stream: Stream, last_seq: int) -> dict[int, dict[str, Any]]:
    """The events the stream carried, up to ``last_seq`` (each once, in order)."""
    seen: dict[int, dict[str, Any]] = {}
    while not seen or max(seen) < last_seq:
        (item,) = stream.events(1)
        if item.id is None:
            continue
        assert item.id not in seen and (not seen or item.id > max(seen))
        seen[item.id] = item.data
    return seen


def _play(match_id: str, players: list[Player], moves: int, done: Any) -> None:
    """Legal moves (the first each time), until ``done()`` or ``moves`` were made."""
    made = 0
    while made < moves:
        for player in players:
            seen = player.match(match_id)
            if seen["status"] != "active":
                return
            if seen["legal_moves"]:
                answer = player.move(match_id, seen["step"], seen["legal_moves"][0])
                assert answer.status_code == 202, answer.content
                made += 1
        if done():
            return


@pytest.mark.parametrize(
    ("game", "options", "seats", "moves", "private"), GAMES, ids=[g[0] for g in GAMES]
)
def test_a_seat_changing_hands_moves_both_old_streams(
    asgi_servers: list[Server],
    game: str,
    options: dict[str, Any],
    seats: int,
    moves: int,
    private: bool,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    """Bob, invited to seat 1, opens a stream and leaves the seat before the start; carol, a
    spectator with a stream open, takes it. Bob's stream must go on as a spectator's (never
    carol's private data), carol's as seat 1's."""
    others = [make_player() for _ in range(seats - 2)]
    invited = [{"user": p.name} for p in (bob, *others)]
    created = alice.create(game, ["me", *invited], options=options)
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    for guest in others:
        assert guest.post(f"/matches/{match_id}/join").status_code == 200
    # Two processes: the notice must reach every one.
    bobs, carols = _open(asgi_servers[0], bob, match_id), _open(asgi_servers[1], carol, match_id)
    assert bob.post(f"/matches/{match_id}/resign").status_code == 200
    assert carol.post(f"/matches/{match_id}/join", {"seat": 1}).status_code == 200
    assert carol.match(match_id)["you"] == 1 and carol.match(match_id)["status"] == "active"

    def private_data_shown() -> bool:
        return _feed(carol, match_id) != _feed(bob, match_id)

    _play(match_id, [alice, carol, *others], moves, private_data_shown)
    assert private_data_shown() == private  # carol's seat has data of its own now
    last_seq = alice.events(match_id)["last_seq"]
    for stream, reader in ((bobs, bob), (carols, carol)):
        carried = _carried(stream, last_seq)
        feed = _feed(reader, match_id)
        # Item for item what the reader's own feed shows (bob: a spectator's, redacted).
        assert carried == {seq: feed[seq] for seq in carried}
        stream.close()


def test_a_bot_standing_in_keeps_the_players_stream_on_their_seat(
    asgi: Server, alice: Player, bob: Player, player: Any
) -> None:
    """An operator hands bob's seat to a bot and back: bob still holds it, so his stream stays
    on his seat (his own flips shown to him) and never goes quiet."""
    staff = player("operator")
    staff.user.is_staff = True
    staff.user.save()
    staff.user.user_permissions.add(Permission.objects.get(codename="change_match"))
    options = {"flips_visible_to": "flipper", "pairs": 6, "history": "full"}
    created = alice.create("memory", ["me", {"user": bob.name}], options=options)
    match_id = created.json()["id"]
    assert bob.post(f"/matches/{match_id}/join").status_code == 200
    bobs = _open(asgi, bob, match_id)
    seat_replace_with_bot(match_id=match_id, seat=1, operator=staff.user, reason="away")
    seat_return(match_id=match_id, seat=1, operator=staff.user, reason="back")
    _play(match_id, [alice, bob], 30, lambda: _feed(bob, match_id) != _feed(alice, match_id))
    last_seq = alice.events(match_id)["last_seq"]
    carried = _carried(bobs, last_seq)
    feed = _feed(bob, match_id)
    assert carried == {seq: feed[seq] for seq in carried}
    bobs.close()
