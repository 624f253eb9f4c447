"""The token authentication reads ``Authorization`` from ``META`` instead of DRF's
``request.headers`` (accounts/authentication.py): every header, plain or odd, gets the same
outcome as through DRF's own reading, and the plain one never builds ``request.headers``."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from accounts.authentication import CachedTokenAuthentication, forget_cached_tokens
from tests.players import make_player


def _outcome(authenticate: Any, header: str | None) -> Any:
    meta: dict[str, Any] = {} if header is None else {"HTTP_AUTHORIZATION": header}
    request = RequestFactory().get("/api/v1/accounts/me", **meta)
    try:
        found = authenticate(request)
    except exceptions.AuthenticationFailed as refused:
        return ("refused", str(refused.detail))
    return None if found is None else ("user", found[0].pk, found[1].key)


def _headers(key: str) -> list[str | None]:
    return [
        None,
        "",
        f"Token {key}",
        f"token {key}",
        f"TOKEN {key}",
        "Token",
        "Token ",
        f"Token  {key}",
        f" Token {key}",
        f"Token {key} ",
        f"Token {key} more",
        f"Token\t{key}",
        f"Token\x1f{key}",
        f"Token {key}\x1fmore",
        f"Token {key[:-1]}\xe9",
        f"Token {key[:-1]}-",
        "Token 0000000000000000000000000000000000000000",
        f"Bearer {key}",
        f"Tokens {key}",
    ]


@pytest.mark.parametrize("cache_seconds", [30, 0])
def test_every_header_gets_drfs_outcome(db: None, settings: Any, cache_seconds: int) -> None:
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = cache_seconds
    forget_cached_tokens()
    key = Token.objects.get(user=make_player().user).key
    ours = CachedTokenAuthentication()
    for header in _headers(key):
        drf = _outcome(lambda request: TokenAuthentication.authenticate(ours, request), header)
        assert _outcome(ours.authenticate, header) == drf, header
    assert _outcome(ours.authenticate, f"Token {key}")[0] == "user"  # the cases are not all None
    forget_cached_tokens()


def test_the_plain_header_does_not_build_request_headers(db: None) -> None:
    key = Token.objects.get(user=make_player().user).key
    meta: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {key}"}
    request = RequestFactory().get("/api/v1/accounts/me", **meta)
    found = CachedTokenAuthentication().authenticate(request)
    assert found is not None and found[1].key == key
    assert "headers" not in request.__dict__  # Django caches it there once built
