"""The pages' language, without a browser: the profile's, else the language cookie and
``Accept-Language``, else English; the switch in the top bar keeps the choice in the profile;
the JavaScript catalogue follows the page."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password"


def test_a_visitor_reads_the_browser_language_else_english(client: Client) -> None:
    german = client.get("/login", HTTP_ACCEPT_LANGUAGE="de-AT,de;q=0.9,en;q=0.5")
    assert german.status_code == 200 and german["Content-Language"] == "de"
    assert "Accept-Language" in german["Vary"]
    page = german.content.decode()
    assert '<html lang="de">' in page and "Anmelden" in page and "Benutzername" in page
    french = client.get("/login", HTTP_ACCEPT_LANGUAGE="fr-FR")
    assert french["Content-Language"] == "en" and "Log in" in french.content.decode()


def test_the_switch_keeps_the_choice_in_the_profile(client: Client) -> None:
    user = User.objects.create_user(username="greta", password=PASSWORD)
    client.force_login(user)
    switched = client.post("/language", {"language": "de", "next": "/tokens"})
    assert switched.status_code == 302 and switched.headers["Location"] == "/tokens"
    user.refresh_from_db()
    assert user.language == "de"
    elsewhere = Client()  # another browser, English, same account
    elsewhere.force_login(user)
    tokens = elsewhere.get("/tokens", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Deine Tokens" in tokens
    assert "Partien, Ereignisse, Streams, Spiele, Spieler und dein Konto lesen." in tokens
    lobby = elsewhere.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Meine Partien" in lobby and 'id="catalogue-words"' in lobby
    assert "Pinguin-Regel" in lobby  # the game catalogue's words travel with the page
    catalogue = elsewhere.get("/jsi18n", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Dein Zug" in catalogue and "Netzwerkfehler" in catalogue


def test_a_visitor_switch_sets_the_cookie_and_refuses_other_sites(client: Client) -> None:
    away = client.post("/language", {"language": "de", "next": "https://elsewhere.example/"})
    assert away.headers["Location"] == "/"
    assert client.get("/signup", HTTP_ACCEPT_LANGUAGE="en")["Content-Language"] == "de"
    unknown = client.post("/language", {"language": "xx", "next": "/login"})
    assert unknown.headers["Location"] == "/login"
    assert client.get("/login")["Content-Language"] == "de"  # unchanged


def test_signing_up_in_german_keeps_german_for_mail_and_pushes(client: Client) -> None:
    form = {"username": "heidi", "password1": PASSWORD, "password2": PASSWORD}
    answer = client.post("/signup", form, HTTP_ACCEPT_LANGUAGE="de")
    assert answer.status_code == 302
    assert User.objects.get(username="heidi").language == "de"
    refused = Client().post("/signup", {**form, "username": "Heidi"}, HTTP_ACCEPT_LANGUAGE="de")
    assert "Dieser Benutzername ist vergeben." in refused.content.decode()
