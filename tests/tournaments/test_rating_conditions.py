"""A tournament's ``min_rating`` and ``max_rating`` are typed and compared in the rating players
read (``1500 + 50 x ordinal``, rounded; games/services/rating_scale.py), not openskill's
ordinal: the bounds are whole numbers from 0 to 10000, a player exactly on a bound may join, a
refusal names both numbers, and tournaments stored with ordinal bounds (and seeks with ordinal
ranges) are converted by their migrations."""

from __future__ import annotations

import importlib
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps
from django.utils import timezone

from games.models import Rating
from social.models import Seek
from tests.players import Player, make_player
from tests.tournaments.driver import tournament
from tournaments.models import Tournament
from tournaments.services.entries import why_not

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _body(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Club cup",
        "game": "gops",
        "options": {"num_cards": 3},
        "format": "round_robin",
        "round_limit_seconds": 86400,
        "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
        **extra,
    }


def _rated(player: Player, ordinal: float) -> None:
    Rating.objects.create(
        user=player.user, game="gops", mu=ordinal + 6, sigma=2, ordinal=ordinal, rated_matches=9
    )


def test_the_bounds_are_shown_ratings_and_a_player_on_a_bound_may_join():
    organiser, weaker, newcomer = make_player(), make_player(), make_player()
    _rated(weaker, -2.8)  # reads 1360, as on the profile
    now = timezone.now()
    floor = tournament(organiser.user, [], now=now, min_rating=1360)
    assert why_not(floor, weaker.user, now) is None
    above = tournament(organiser.user, [], now=now, min_rating=1361)
    assert why_not(above, weaker.user, now) == "rating_too_low"
    # a newcomer reads 1500: within 1500 to 1500, above a cap of 1499
    exact = tournament(organiser.user, [], now=now, min_rating=1500, max_rating=1500)
    assert why_not(exact, newcomer.user, now) is None
    capped = tournament(organiser.user, [], now=now, max_rating=1499)
    assert why_not(capped, newcomer.user, now) == "rating_too_high"


def test_over_http_the_bounds_are_whole_shown_numbers_and_a_refusal_says_both():
    organiser, weaker = make_player(), make_player()
    _rated(weaker, -2.8)
    for bad, field in (
        ({"min_rating": 1400.5}, "min_rating"),
        ({"max_rating": 10_001}, "max_rating"),
        ({"min_rating": -1}, "min_rating"),
        ({"min_rating": 1600, "max_rating": 1500}, "max_rating"),
    ):
        answer = organiser.post("/tournaments", _body(**bad))
        assert answer.status_code == 400, bad
        assert answer.json()["code"] == "validation_error" and field in answer.json()["errors"]
    assert not Tournament.objects.exists()

    created = organiser.post("/tournaments", _body(min_rating=1400, max_rating=2200))
    assert created.status_code == 201, created.content
    tid = created.json()["id"]
    assert (created.json()["min_rating"], created.json()["max_rating"]) == (1400, 2200)
    you = weaker.get(f"/tournaments/{tid}").json()["you"]
    assert you["why_not"] == "rating_too_low" and you["rating"] == 1360
    refused = weaker.post(f"/tournaments/{tid}/join", {})
    assert refused.status_code == 403
    problem = refused.json()
    assert problem["code"] == "entry_refused" and problem["why_not"] == "rating_too_low"
    assert (problem["rating"], problem["limit"]) == (1360, 1400)
    assert problem["detail"] == "Your rating is below this tournament's minimum."
    german = weaker.post(f"/tournaments/{tid}/join", {}, HTTP_ACCEPT_LANGUAGE="de")
    assert german.json()["detail"] == "Deine Wertung liegt unter dem Minimum dieses Turniers."


def _migration(app: str, name: str) -> Any:
    return importlib.import_module(f"{app}.migrations.{name}")


def test_stored_ordinal_bounds_and_seek_ranges_are_converted_to_shown_ratings():
    organiser = make_player()
    old, open_bound = tournament(organiser.user, []), tournament(organiser.user, [])
    # bounds as they were stored before: ordinals
    Tournament.objects.filter(pk=old.pk).update(min_rating=-2, max_rating=10)
    Tournament.objects.filter(pk=open_bound.pk).update(max_rating=4)
    tournaments = _migration("tournaments", "0003_ratings_as_shown")
    tournaments.ordinals_to_shown(apps, None)
    old.refresh_from_db()
    open_bound.refresh_from_db()
    assert (old.min_rating, old.max_rating) == (1400, 2000)
    assert (open_bound.min_rating, open_bound.max_rating) == (None, 1700)
    tournaments.shown_to_ordinals(apps, None)  # and back
    old.refresh_from_db()
    assert (old.min_rating, old.max_rating) == (-2, 10)

    seeker = make_player()
    posted = seeker.post(
        "/seeks", {"game": "gops", "players": 2, "rating_range": {"min": 5, "max": 9000}}
    )
    assert posted.status_code == 201, posted.content
    _migration("social", "0004_seek_ratings_as_shown").ordinals_to_shown(apps, None)
    assert Seek.objects.get().rating_range == {"min": 1750, "max": 10_000}
