"""The page shells, without a browser: sign-up creates the user as the API does, pages need a
session, the client's assets are served in every run mode."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.models import AccessToken, User
from games.catalog import GAMES, web_drawings

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password"


def test_pages_need_a_session(client: Client) -> None:
    assert client.get("/").headers["Location"] == "/login?next=/"
    match_page = client.get("/matches/3f2b8c1e-0000-4000-8000-000000000000")
    assert match_page.status_code == 302
    for path in ("/tournaments", "/tournaments/3f2b8c1e-0000-4000-8000-000000000000"):
        assert client.get(path).headers["Location"] == f"/login?next={path}"


def test_a_tournament_page_needs_a_well_formed_id(client: Client) -> None:
    User.objects.create_user(username="tess", password=PASSWORD)
    client.login(username="tess", password=PASSWORD)
    assert client.get("/tournaments/not-an-id").status_code == 404
    page = client.get("/tournaments/3f2b8c1e-0000-4000-8000-000000000000")
    assert page.status_code == 200 and b'data-tournament-id="3f2b8c1e-' in page.content


def test_sign_up_creates_the_user_like_the_api_and_logs_in(client: Client) -> None:
    page = client.get("/signup")
    assert page.status_code == 200 and b'name="password2"' in page.content
    answer = client.post(
        "/signup", {"username": "erin", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert answer.status_code == 302 and answer.headers["Location"] == "/"
    user = User.objects.get(username="erin")
    assert AccessToken.objects.filter(user=user).exists()  # as POST /accounts/register would
    lobby = client.get("/")
    assert lobby.status_code == 200 and b"erin" in lobby.content
    assert "csrftoken" in lobby.cookies  # the page's script sends it back as X-CSRFToken
    me = client.get("/api/v1/accounts/me")  # the session authenticates the API
    assert me.status_code == 200 and me.json()["username"] == "erin"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"username": "x", "password1": PASSWORD, "password2": PASSWORD}, "username", "3 to 30"),
        ({"username": "Taken", "password1": PASSWORD, "password2": PASSWORD}, "username", "taken"),
        ({"username": "fresh", "password1": "short", "password2": "short"}, "password1", "short"),
        ({"username": "fresh", "password1": PASSWORD, "password2": "other-one"}, "password2", ""),
    ],
)
def test_sign_up_refuses_what_registration_refuses(
    client: Client, data: dict[str, str], field: str, message: str
) -> None:
    User.objects.create_user(username="taken", password=PASSWORD)
    answer = client.post("/signup", data)
    assert answer.status_code == 200
    errors = answer.context["form"].errors
    assert field in errors and message in " ".join(errors[field])
    assert not User.objects.filter(username="fresh").exists()


def test_log_in_and_out(client: Client) -> None:
    User.objects.create_user(username="fay", password=PASSWORD)
    answer = client.post("/login", {"username": "fay", "password": PASSWORD})
    assert answer.status_code == 302 and answer.headers["Location"] == "/"
    page = client.get("/matches/3f2b8c1e-0000-4000-8000-000000000000")
    assert page.status_code == 200 and b'data-match-id="3f2b8c1e-' in page.content
    assert client.get("/matches/not-a-uuid").status_code == 404
    client.post("/logout")
    assert client.get("/").status_code == 302


def test_assets_are_served_without_collectstatic(client: Client) -> None:
    for name, kind in [("api.js", "javascript"), ("match.js", "javascript"), ("app.css", "css")]:
        answer = client.get(f"/assets/{name}")
        assert answer.status_code == 200 and kind in answer.headers["Content-Type"]
        assert answer.headers["Cache-Control"] == "no-cache"
    assert client.get("/assets/../views.py").status_code in (400, 404)


def test_the_match_page_embeds_how_each_game_is_drawn(client: Client) -> None:
    user = User.objects.create_user(username="gus", password=PASSWORD)
    client.force_login(user)
    page = client.get("/matches/3f2b8c1e-0000-4000-8000-000000000000")
    embedded = re.search(
        r'<script id="game-drawings" type="application/json">(.*?)</script>', page.content.decode()
    )
    assert embedded is not None
    assert json.loads(embedded.group(1)) == web_drawings()
    assert set(web_drawings()) == set(GAMES)
    assert web_drawings()["hols-der-geier"] == {
        "layout": "cards",
        "prize_faces": "mice_and_vultures",
    }
    assert web_drawings()["memory"]["layout"] == "generic"


def test_favicon_is_a_small_icon(db):
    from django.test import Client

    answer = Client().get("/favicon.ico")
    assert answer.status_code == 200
    body = answer.content
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert 0 < len(body) < 4096
    assert "max-age" in answer["Cache-Control"]
