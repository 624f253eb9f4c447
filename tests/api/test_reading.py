"""Reading a match: per-viewer ETags and 304s, the games catalogue, the schema, throttling."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from games.models import Match
from tests.players import API, start_match


def test_etag_is_per_viewer_and_answers_304(alice, bob, carol):
    match_id = start_match("gops", [alice, bob])
    first = alice.get(f"/matches/{match_id}")
    etag = first["ETag"]
    assert re.fullmatch(r'"[0-9a-f]+"', etag)
    assert "Authorization" in first["Vary"] and "Cookie" in first["Vary"]
    assert bob.get(f"/matches/{match_id}")["ETag"] != etag
    assert carol.get(f"/matches/{match_id}")["ETag"] not in (etag,)

    cached = alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=etag)
    assert cached.status_code == 304 and cached["ETag"] == etag and not cached.content
    assert alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=f'"x", {etag}').status_code == 304
    assert alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH='"other"').status_code == 200

    alice.move(match_id, 1, {"card": 1})
    assert alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_own_submission_changes_only_own_etag_when_undisclosed(alice, bob):
    match_id = start_match("gops", [alice, bob], disclose_submitted=False)
    alice_tag = alice.get(f"/matches/{match_id}")["ETag"]
    bob_tag = bob.get(f"/matches/{match_id}")["ETag"]
    alice.move(match_id, 1, {"card": 1})
    assert alice.get(f"/matches/{match_id}")["ETag"] != alice_tag
    assert bob.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=bob_tag).status_code == 304


def test_304_does_not_load_the_engine_state(alice, bob, django_assert_max_num_queries):
    match_id = start_match("gops", [alice, bob])
    etag = alice.get(f"/matches/{match_id}")["ETag"]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert not any('"state"' in q["sql"] for q in queries.captured_queries)
    assert len(queries) <= 2  # token lookup + match with its seats


def test_games_catalogue_is_public(db):
    client = APIClient()
    games = client.get(f"{API}/games").json()
    assert isinstance(games, list)
    by_slug = {g["slug"]: g for g in games}
    assert by_slug["gops"]["players"] == {"min": 2, "max": 3}
    assert by_slug["hols-der-geier"]["players"] == {"min": 2, "max": 5}
    for game in games:
        assert set(game) == {"slug", "name", "players", "options", "bots"}
        properties = game["options"]["properties"]
        assert all("default" in prop for prop in properties.values())
    variant = by_slug["hols-der-geier"]["options"]["properties"]["two_player_variant"]
    assert variant["default"] is None and "automatic" in variant["description"].lower()
    assert client.get(f"{API}/games/gops").json() == by_slug["gops"]


def test_schema_and_docs_are_served(db):
    client = APIClient()
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in (
        "/api/v1/matches",
        "/api/v1/matches/{match_id}/moves",
        "/api/v1/matches/{match_id}/events",
        "/api/v1/accounts/register",
    ):
        assert path in paths
    assert client.get("/api/docs/").status_code == 200


def test_throttled_requests_get_429_with_retry_after(db, monkeypatch):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "login": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    cache.clear()
    client = APIClient()
    body = {"username": "nobody", "password": "wrong-password"}
    for _ in range(2):
        assert client.post(f"{API}/accounts/token", body, format="json").status_code == 400
    answer = client.post(f"{API}/accounts/token", body, format="json")
    assert answer.status_code == 429
    assert answer.json()["code"] == "throttled"
    assert int(answer["Retry-After"]) > 0
    cache.clear()


def test_demo_command_prints_a_playable_match(db, settings):
    settings.FACEDOWN_TASK_RUNNER = "off"
    out = StringIO()
    call_command("demo", stdout=out)
    text = out.getvalue()
    match, versus_bot = Match.objects.order_by("created_at")
    assert match.status == Match.Status.ACTIVE and str(match.id) in text
    assert str(versus_bot.id) in text
    assert [s.bot for s in versus_bot.seats.order_by("index")] == ["", "greedy"]
    tokens = re.findall(r"token (fdp_[0-9a-f]{40})", text)
    assert len(tokens) == 2
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    seen = client.get(f"{API}/matches/{match.id}").json()
    assert seen["you"] == 0 and seen["legal_moves"]
    # running it again reuses the players and starts a fresh pair of matches
    call_command("demo", stdout=StringIO())
    assert Match.objects.count() == 4


def test_user_throttle_counts_in_windows(alice, bob, monkeypatch):
    from core.throttling import UserRateThrottle

    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/hour", "anon": "9/hour"})
    cache.clear()
    answers = [alice.get("/matches").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert bob.get("/matches").status_code == 200  # counted per user
    throttled = alice.get("/matches")
    assert throttled.json()["code"] == "throttled"
    assert 0 < int(throttled["Retry-After"]) <= 3601
    cache.clear()


_ASSET = re.compile(r"""(?:src|href)=["']([^"']+)["']""")


@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_api_docs_load_everything_from_this_server(db, settings, page):
    settings.DEBUG = False  # as scripts/run and production run: no staticfiles fallback
    client = APIClient()
    html = client.get(page).content.decode()
    assets = _ASSET.findall(html)
    assert assets, html
    remote = [url for url in assets if not url.startswith("/") or url.startswith("//")]
    assert remote == [], "the docs page needs the internet"
    assert "googleapis" not in html and "cdn" not in html.lower()
    for url in assets:
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert b"".join(answer.streaming_content), url
