"""Scopes across the whole API: every endpoint that reads credentials, with every scope of an
access token, and an expired and a revoked token (docs/programs.md, "Scopes").

A token lacking the endpoint's scope gets 403 ``insufficient_scope`` and changes nothing; one
holding it gets past the scope check (whatever the endpoint then answers); an expired or
revoked token gets 401. The matrix of who may do what with a full token is
``test_authorization_matrix.py``; the streams' scope is tested on a real ASGI server
(``tests/live/test_program_streams.py``).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.urls import resolve
from django.utils import timezone
from rest_framework.permissions import AllowAny
from rest_framework.test import APIClient

from accounts.authentication import forget_cached_tokens
from accounts.models import AccessToken
from accounts.scopes import BOT_PLAY, SCOPES, TokenGrant, needed_scope
from accounts.tokens import token_issue
from tests.api.test_authorization_matrix import api_endpoints, fingerprint
from tests.players import make_player

pytestmark = pytest.mark.django_db
FAKE = {
    "match_id": "00000000-0000-4000-8000-000000000000",
    "challenge_id": "00000000-0000-4000-8000-000000000000",
    "seek_id": "00000000-0000-4000-8000-000000000000",
    "series_id": "00000000-0000-4000-8000-000000000000",
    "slug": "gops",
    "game": "gops",
    "username": "nobody",
    "seq": "1",
    "token_id": "999999",
    "webhook_id": "999999",
    "subscription_id": "999999",
    "proposal_id": "999999",
    "offer_id": "999999",
    "sanction_id": "999999",
    "tournament_id": "00000000-0000-4000-8000-000000000000",
}


def _guarded() -> list[tuple[str, str, Any]]:
    """(method, path, view class) of every endpoint whose view reads credentials (the streams,
    served by the ASGI server, apart)."""
    found = []
    for name in sorted(api_endpoints()):
        method, template = name.split(" ")
        path = re.sub(r"\{(\w+)\}", lambda m: FAKE[m[1]], template)
        view = resolve(path).func
        view_class = getattr(view, "view_class", None) or getattr(view, "cls", None)
        if path.endswith("/stream") or not hasattr(view_class, "permission_classes"):
            continue
        if view_class.authentication_classes == [] or AllowAny in view_class.permission_classes:
            continue
        found.append((method, path, view_class))
    return found


class _Rollback(Exception):
    pass


def _send(client: APIClient, method: str, path: str) -> tuple[Any, bool]:
    """The answer and whether the database changed, in a savepoint rolled back afterwards (a
    logout or a bot upgrade would end the tokens the next cells use)."""
    seen: list[tuple[Any, bool]] = []
    try:
        with transaction.atomic():
            before = fingerprint()
            answer = getattr(client, method.lower())(path, {}, format="json")
            seen.append((answer, fingerprint() != before))
            raise _Rollback
    except _Rollback:
        pass
    return seen[0]


def test_every_endpoint_asks_for_its_scope_and_nothing_more() -> None:
    player = make_player()
    clients = {}
    for scope in SCOPES:
        if scope == BOT_PLAY:
            continue  # a person's token cannot hold it; bot accounts are tested on their own
        client = APIClient()
        grant = token_issue(player.user, name=scope, scopes=[scope])
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {grant[1]}")
        clients[scope] = client
    endpoints = _guarded()
    assert len(endpoints) > 40
    for method, path, view_class in endpoints:
        needed = needed_scope(view_class, method, is_bot=False)
        for scope, client in clients.items():
            granted = TokenGrant.of(0, [scope], None).scopes
            answer, changed = _send(client, method, path)
            body = answer.json() if answer.content else None
            code = body.get("code") if isinstance(body, dict) else None
            if needed in granted:
                assert code != "insufficient_scope", (method, path, scope)
            else:
                assert (answer.status_code, code) == (403, "insufficient_scope"), (
                    method,
                    path,
                    scope,
                    answer.content,
                )
                assert not changed, (method, path, scope)


@pytest.mark.parametrize("ending", ["expired", "revoked"])
def test_an_ended_token_is_refused_everywhere(ending: str) -> None:
    player = make_player()
    made, secret = token_issue(player.user, name="ending", expires_in=timedelta(minutes=5))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    if ending == "expired":
        AccessToken.objects.filter(pk=made.pk).update(expires_at=timezone.now())
    else:
        made.delete()
    forget_cached_tokens()
    for method, path, _ in _guarded():
        answer, changed = _send(client, method, path)
        assert answer.status_code == 401 and not changed, (method, path, answer.content)
        assert answer.json()["code"] == "not_authenticated"
