"""Who reads and who wrote, for the read replica's gate (games/replica_gate.py).

``ReplicaReaderMiddleware`` makes a request's account known to ``replica_reads()`` (found only
when a read needs it: the authenticated user, or on the public views that read no credentials
the token of an ``Authorization`` header; an invalid token reads as anonymous),
and after a write request of an account that succeeded (any method but GET, HEAD, OPTIONS and
TRACE, answered below 400: a refused request changes nothing) notes the moment, after its
commit, for that account. With no replica configured it does nothing.

Requests served asynchronously (the live streams) only read what is live: they pass through.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import token_from_header, token_identity
from core.token_requests import is_token_api_request
from games.replica_gate import reading_as, wrote
from games.routers import replica_configured

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def request_account(request: HttpRequest) -> int | None:
    """The account the request is made for, or None (anonymous, or an invalid token): the user
    DRF authenticated (it sets it on the request for the middleware too) or the session's; on
    a public view, which authenticates nobody, the token's (from the process's token cache)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return int(user.pk)
    if not is_token_api_request(request):
        return None
    try:
        secret = token_from_header(request.META["HTTP_AUTHORIZATION"])
        return token_identity(secret)[0].pk if secret is not None else None
    except AuthenticationFailed:
        return None


class ReplicaReaderMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        if not replica_configured():
            return self.get_response(request)
        account = cache(lambda: request_account(request))
        with reading_as(account):
            response: HttpResponseBase = self.get_response(request)
        if request.method not in SAFE_METHODS and response.status_code < 400:
            account_id = account()
            if account_id is not None:
                wrote(account_id)
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        answer: Awaitable[HttpResponseBase] = self.get_response(request)
        return await answer
