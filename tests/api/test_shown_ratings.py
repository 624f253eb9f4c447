"""The profile and the leaderboard carry the rating a person reads (``rating``, 1500 + 50 x the
ordinal) and ``provisional`` beside openskill's raw ``ordinal``, ``mu`` and ``sigma``."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.models import Rating
from games.services.rating_scale import PROVISIONAL_SIGMA
from tests.players import API, Player

pytestmark = pytest.mark.django_db


def _rate(player: Player, game: str, mu: float, sigma: float, rated: int) -> None:
    Rating.objects.create(
        user=player.user, game=game, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma,
        rated_matches=rated, played=rated, won=rated // 2, opponents=rated,
    )  # fmt: skip


def test_profile_ratings_are_shown_with_the_raw_values_beside(alice: Player) -> None:
    _rate(alice, "gops", mu=30.0, sigma=3.0, rated=20)  # ordinal 21: settled
    _rate(alice, "memory", mu=25.0, sigma=PROVISIONAL_SIGMA + 1, rated=2)  # ordinal 4: new
    _rate(alice, "xato", mu=25.0, sigma=25 / 3, rated=0)  # never rated
    body = APIClient().get(f"{API}/players/alice").json()
    by_game = {r["game"]: r for r in body["ratings"]}
    assert by_game["gops"] == {
        "game": "gops", "rating": 2550, "provisional": False, "ordinal": 21.0, "mu": 30.0,
        "sigma": 3.0, "rated_matches": 20, "played": 20, "won": 10,
    }  # fmt: skip
    assert (by_game["memory"]["rating"], by_game["memory"]["provisional"]) == (1700, True)
    assert by_game["memory"]["ordinal"] == 4.0
    # Before a rated match: nothing to show, though openskill has its starting values.
    xato = by_game["xato"]
    assert (xato["rating"], xato["ordinal"], xato["provisional"]) == (None, None, True)
    assert (xato["mu"], xato["sigma"]) == (25.0, 8.33)


def test_the_leaderboard_shows_ratings_best_first(
    alice: Player, bob: Player, carol: Player, settings: Any
) -> None:
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 1
    _rate(alice, "gops", mu=20.0, sigma=2.0, rated=12)  # ordinal 14
    _rate(bob, "gops", mu=26.0, sigma=7.0, rated=3)  # ordinal 5: provisional
    _rate(carol, "gops", mu=15.0, sigma=6.0, rated=9)  # ordinal -3: below 1500, not negative
    board = APIClient().get(f"{API}/games/gops/leaderboard").json()["results"]
    shown = [(e["player"], e["rating"], e["provisional"], e["ordinal"]) for e in board]
    assert shown == [
        ("alice", 2200, False, 14.0),
        ("bob", 1750, True, 5.0),
        ("carol", 1350, False, -3.0),
    ]
    assert {"mu", "sigma", "rated_matches"} <= set(board[0])
