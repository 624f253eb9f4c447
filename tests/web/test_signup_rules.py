"""The web sign-up registers through the API's rules: the same names refused, the same
``register`` budget per address; and a reserved name never breaks closing an account."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from tests.players import API, make_player

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password"


def _sign_up(username: str, client: Client | None = None) -> Any:
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    return (client or Client()).post("/signup", data)


def _register(username: str) -> Any:
    body = {"username": username, "password": PASSWORD}
    return APIClient().post(f"{API}/accounts/register", body, format="json")


@pytest.mark.parametrize(
    ("existing", "refused"),
    [
        ("pl00x", "p1oox"),  # a look-alike
        ("root", "r0ot"),  # a look-alike of an operator
        (None, "deleted-5"),  # a closed account's form
        (None, "De1eted-12"),  # ... and a look-alike of it
    ],
)
def test_web_and_api_refuse_the_same_names(existing: str | None, refused: str) -> None:
    if existing is not None:
        User.objects.create_user(existing, password=PASSWORD, is_staff=existing == "root")
    web = _sign_up(refused)
    assert web.status_code == 200 and "username" in web.context["form"].errors
    api = _register(refused)
    assert api.status_code == 400 and list(api.json()["errors"]) == ["username"]
    assert not User.objects.filter(username__iexact=refused).exists()


def test_web_sign_up_normalises_like_the_api() -> None:
    assert _sign_up("\uff45\uff52\uff49\uff4e").status_code == 302  # full-width "erin"
    assert User.objects.filter(username="erin").exists()


def test_web_sign_ups_count_against_the_register_budget_of_the_address(rates: Any) -> None:
    rates(register="3/hour")
    assert _register("first").status_code == 201
    answers = [_sign_up(f"web{n}").status_code for n in range(3)]
    assert answers == [302, 302, 429]
    assert _register("fourth").status_code == 429  # one budget for both ways in
    assert set(User.objects.values_list("username", flat=True)) == {"first", "web0", "web1"}


def test_closing_an_account_works_whatever_names_exist() -> None:
    player = make_player()
    # A name of the old placeholder form, as the web sign-up used to let through.
    User.objects.create_user(f"deleted-{player.user.pk}", password=PASSWORD)
    closed = player.client.delete(
        f"{API}/accounts/me", {"password": "correct-horse-battery"}, format="json"
    )
    assert closed.status_code == 204
    user = User.objects.get(pk=player.user.pk)
    assert not user.is_active and user.username == f"deleted~{user.pk}"
    assert _register(user.username).status_code == 400
