"""The ``Authorization`` header of an access token: ``Bearer <secret>`` or ``Token <secret>``,
read from ``META`` (accounts/authentication.py). Every form gets one outcome, with the cache on
and off: the user, a refusal (401), or None (another scheme: the session decides)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework import exceptions

from accounts.authentication import AccessTokenAuthentication, forget_cached_tokens
from tests.players import make_player

USER, REFUSED, OTHER = "user", "refused", None


def _outcome(header: str | None) -> Any:
    meta: dict[str, Any] = {} if header is None else {"HTTP_AUTHORIZATION": header}
    request = RequestFactory().get("/api/v1/accounts/me", **meta)
    try:
        found = AccessTokenAuthentication().authenticate(request)
    except exceptions.AuthenticationFailed:
        return REFUSED
    return None if found is None else USER


def _cases(key: str) -> list[tuple[str | None, str | None]]:
    return [
        (None, OTHER),
        ("", OTHER),
        (f"Token {key}", USER),
        (f"token {key}", USER),
        (f"TOKEN {key}", USER),
        (f"Bearer {key}", USER),
        (f"bearer {key}", USER),
        ("Token", REFUSED),
        ("Token ", REFUSED),
        ("Bearer ", REFUSED),
        (f"Token  {key}", REFUSED),
        (f" Token {key}", OTHER),
        (f"Token {key} ", REFUSED),
        (f"Token {key} more", REFUSED),
        (f"Token\t{key}", OTHER),
        (f"Token\x1f{key}", OTHER),
        (f"Token {key}\x1fmore", REFUSED),
        (f"Token {key[:-1]}\xe9", REFUSED),
        (f"Token {key[:-1]}-", REFUSED),
        (f"Token {key.upper()}", REFUSED),
        ("Token 0000000000000000000000000000000000000000", REFUSED),
        ("Bearer fdp_0000000000000000000000000000000000000000", REFUSED),
        (f"Tokens {key}", OTHER),
        (f"Basic {key}", OTHER),
    ]


@pytest.mark.parametrize("cache_seconds", [30, 0])
def test_every_header_has_one_outcome(db: None, settings: Any, cache_seconds: int) -> None:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = cache_seconds
    forget_cached_tokens()
    key = make_player().token
    for header, expected in _cases(key):
        assert _outcome(header) == expected, header
    forget_cached_tokens()


def test_the_header_is_read_without_building_request_headers(db: None) -> None:
    player = make_player()
    meta: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {player.token}"}
    request = RequestFactory().get("/api/v1/accounts/me", **meta)
    found = AccessTokenAuthentication().authenticate(request)
    assert found is not None and found[0].pk == player.user.pk
    assert "headers" not in request.__dict__  # Django caches it there once built
