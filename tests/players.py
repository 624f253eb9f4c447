"""Test clients that speak the HTTP API the way a real client does."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from rest_framework.test import APIClient

from accounts.models import User
from accounts.tokens import token_issue

API = "/api/v1"
_names = itertools.count(1)


@dataclass
class Player:
    user: User
    token: str
    client: APIClient = field(default_factory=APIClient)

    def __post_init__(self) -> None:
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {self.token}")

    @property
    def name(self) -> str:
        return self.user.username

    def get(self, path: str, **headers: str) -> Any:
        return self.client.get(API + path, **headers)

    def post(self, path: str, body: Any = None, **headers: str) -> Any:
        return self.client.post(
            API + path, body if body is not None else {}, format="json", **headers
        )

    def create(self, game: str, seats: list[Any], **extra: Any) -> Any:
        return self.post("/matches", {"game": game, "seats": seats, **extra})

    def match(self, match_id: str) -> dict[str, Any]:
        response = self.get(f"/matches/{match_id}")
        assert response.status_code == 200, response.content
        return response.json()

    def move(self, match_id: str, step: int, move: dict[str, Any], **headers: str) -> Any:
        return self.post(f"/matches/{match_id}/moves", {"step": step, "move": move}, **headers)

    def events(self, match_id: str, after: int = 0) -> dict[str, Any]:
        response = self.get(f"/matches/{match_id}/events?after={after}")
        assert response.status_code == 200, response.content
        return response.json()


def make_player(name: str | None = None, *, bot: bool = False) -> Player:
    """A new account and a token with every scope it may use (a bot account: ``bot:play``)."""
    username = name or f"player{next(_names)}"
    user = User.objects.create_user(username=username, password="correct-horse-battery")
    if bot:
        user.is_bot = True
        user.save(update_fields=["is_bot"])
    return Player(user=user, token=token_issue(user, name="tests")[1])


def start_match(game: str, players: list[Player], **extra: Any) -> str:
    """The first player creates the match inviting the others, who accept it; returns its id."""
    host, *guests = players
    created = host.create(game, ["me", *({"user": p.name} for p in guests)], **extra)
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    for guest in guests:
        joined = guest.post(f"/matches/{match_id}/join", {"client_seed": f"seed-{guest.name}"})
        assert joined.status_code == 200, joined.content
    return match_id


def play_to_end(match_id: str, players: list[Player], pick: Any = None) -> dict[str, Any]:
    """Every seat plays a legal move (the first, or ``pick(legal)``) until the match is over."""
    for _ in range(500):
        current = players[0].match(match_id)
        if current["status"] != "active":
            return current
        for player in players:
            seen = player.match(match_id)
            if seen["status"] != "active" or not seen["legal_moves"]:
                continue
            legal = seen["legal_moves"]
            move = pick(legal) if pick else legal[0]
            answer = player.move(match_id, seen["step"], move)
            assert answer.status_code == 202, answer.content
    raise AssertionError("match did not end")
