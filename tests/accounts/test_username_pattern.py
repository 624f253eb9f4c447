"""Usernames stay ASCII (accounts/usernames.py says why); the refusal states the pattern."""

from __future__ import annotations

import pytest

from accounts.usernames import USERNAME_PATTERN
from tests.players import API


@pytest.mark.parametrize("name", ["émile", "李雷", "\u0430lice", "a b"])
def test_a_non_ascii_name_is_refused_with_the_pattern_in_the_message(client, db, name):
    answer = client.post(
        f"{API}/accounts/register",
        {"username": name, "password": "a-long-password-1"},
        content_type="application/json",
    )
    assert answer.status_code == 400
    message = answer.json()["errors"]["username"][0]
    assert USERNAME_PATTERN.pattern in message


def test_full_width_letters_are_normalised_not_refused(client, db):
    answer = client.post(
        f"{API}/accounts/register",
        {"username": "\uff45\uff4d\uff49\uff4c\uff45", "password": "a-long-password-1"},
        content_type="application/json",
    )
    assert answer.status_code == 201 and answer.json()["username"] == "emile"
