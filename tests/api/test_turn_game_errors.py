"""Bad input named in the rules of Xato (X11), Old Men of the Forest (M9) and Memory (Y3):
a clear 4xx code, and nothing changed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.test_errors import assert_problem, database
from tests.players import Player, make_player


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _table(game: str, count: int, **options: Any) -> tuple[str, list[Player]]:
    players = [make_player() for _ in range(count)]
    host, *guests = players
    created = host.create(game, ["me", *({"user": p.name} for p in guests)], options=options)
    match_id = created.json()["id"]
    for guest in guests:
        guest.post(f"/matches/{match_id}/join")
    return match_id, players


def _refused(player: Player, match_id: str, move: Any, status: int, code: str) -> None:
    before = database()
    step = player.match(match_id)["step"]
    assert_problem(player.move(match_id, step, move), status, code)
    assert database() == before


def _actor(match_id: str, players: list[Player]) -> tuple[Player, list[Player]]:
    seen = players[0].match(match_id)
    (index,) = seen["phase"]["to_act"]
    return players[index], [p for i, p in enumerate(players) if i != index]


def test_xato_x11(db):
    match_id, players = _table("xato", 4, max_calls=8)
    actor, idle = _actor(match_id, players)
    _refused(actor, match_id, {"take": "ZZ"}, 400, "illegal_move")
    _refused(actor, match_id, {"take": 7}, 400, "illegal_move")
    _refused(actor, match_id, {"call": "QS"}, 400, "illegal_move")  # not a draft move
    _refused(idle[0], match_id, {"take": "QS"}, 409, "not_your_turn")
    actor.move(match_id, actor.match(match_id)["step"], {"take": "QS"})
    nxt, _ = _actor(match_id, players)
    _refused(nxt, match_id, {"take": "QS"}, 400, "illegal_move")  # already taken
    while players[0].match(match_id)["phase"]["kind"] == "turn":  # finish the draft
        actor, _ = _actor(match_id, players)
        seen = actor.match(match_id)
        actor.move(match_id, seen["step"], seen["legal_moves"][0])
    me = players[0]
    hand = me.match(match_id)["legal_moves"][0]["life"]["from"]
    outside = next(c for c in ("AS", "2S", "3S", "4S", "5S", "6S", "RJ") if c not in hand)
    _refused(me, match_id, {"life": hand[:2]}, 400, "illegal_move")  # wrong number
    _refused(me, match_id, {"life": [hand[0], hand[1], outside]}, 400, "illegal_move")
    _refused(me, match_id, {"life": [hand[0], hand[0], hand[1]]}, 400, "illegal_move")
    _refused(me, match_id, {"life": "AS"}, 400, "illegal_move")


def test_old_men_m9(db):
    match_id, players = _table("old-men-of-the-forest", 3)
    leader, idle = _actor(match_id, players)
    hand = leader.match(match_id)["view"]["hand"]
    _refused(
        idle[0],
        match_id,
        {"play": idle[0].match(match_id)["view"]["hand"][0]},
        409,
        "not_your_turn",
    )
    not_mine = next(f"{c}{v}" for c in "RBYGX" for v in range(1, 11) if f"{c}{v}" not in hand)
    _refused(leader, match_id, {"play": not_mine}, 400, "illegal_move")
    _refused(leader, match_id, {"take": hand[0]}, 400, "illegal_move")  # not a take step
    for _ in range(3):  # everyone plays a card: the take step opens
        actor, _ = _actor(match_id, players)
        seen = actor.match(match_id)
        actor.move(match_id, seen["step"], seen["legal_moves"][0])
    taker, _ = _actor(match_id, players)
    seen = taker.match(match_id)
    assert all("take" in move for move in seen["legal_moves"])
    own = next(p["card"] for p in seen["view"]["trick"] if p["seat"] == players.index(taker))
    _refused(taker, match_id, {"take": own}, 400, "illegal_move")  # its own card
    _refused(taker, match_id, {"cash_in": {"orangutan": "OU16"}}, 400, "illegal_move")


def test_memory_y3(db):
    match_id, players = _table("memory", 2, pairs=6)
    flipper, (other,) = _actor(match_id, players)
    _refused(other, match_id, {"flip": 0}, 409, "not_your_turn")
    _refused(flipper, match_id, {"flip": 12}, 400, "illegal_move")  # no such position
    _refused(flipper, match_id, {"flip": "0"}, 400, "illegal_move")
    flipper.move(match_id, flipper.match(match_id)["step"], {"flip": 0})
    _refused(flipper, match_id, {"flip": 0}, 400, "illegal_move")  # already flipped
