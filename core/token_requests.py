"""Middleware that API requests authenticated by a token header do not need, skipped for them.

Sessions, the session user and messages serve the browser: a request to ``/api/`` that
carries ``Authorization: Bearer …`` (or ``Token …``) is authenticated by the access token alone (it
comes first in ``DEFAULT_AUTHENTICATION_CLASSES``, and a present but bad token is refused, never
passed on to the session), sets no cookies and reads no messages. For such a request these
subclasses of Django's middleware do nothing; every other request (the web client's cookie
login, the admin, an API request without the header) goes through them unchanged.
config/settings.py swaps them in for Django's in ``MIDDLEWARE``, in place. Django's own CSRF
middleware stays for every request (``check --deploy`` asks for it by name, and DRF's views are
exempt from it already, so a token request costs it only a cookie look-up).

Until DRF authenticates a skipped request, ``request.user`` is the anonymous user, as it would
be for a request without a session.
"""

from __future__ import annotations

from functools import partial
from typing import Any, cast

from django.contrib import auth
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthentication
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessages
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessions
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

#: The request attribute that holds the session's user once something has loaded it: what the
#: access log names, without loading the user (a query) itself.
SESSION_USER = "session_user"


def is_token_api_request(request: HttpRequest) -> bool:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme = header[:7].lower()
    named = scheme.startswith("token ") or scheme == "bearer "
    return named and request.path_info.startswith("/api/")


class SessionMiddleware(DjangoSessions):
    def process_request(self, request: HttpRequest) -> None:
        if not is_token_api_request(request):
            super().process_request(request)

    def process_response(self, request: HttpRequest, response: Any) -> Any:
        if is_token_api_request(request):
            return response
        return super().process_response(request, response)


class AuthenticationMiddleware(DjangoAuthentication):
    def process_request(self, request: HttpRequest) -> None:
        if is_token_api_request(request):
            from django.contrib.auth.models import AnonymousUser  # models: not at settings time

            request.user = AnonymousUser()
            return
        super().process_request(request)
        request.user = cast(Any, SimpleLazyObject(partial(_session_user, request)))


def _session_user(request: HttpRequest) -> Any:
    """The session's user (Django's public ``auth.get_user``), noted on the request."""
    user = auth.get_user(request)
    setattr(request, SESSION_USER, user)
    return user


class MessageMiddleware(DjangoMessages):
    def process_request(self, request: HttpRequest) -> None:
        if not is_token_api_request(request):
            super().process_request(request)

    def process_response(self, request: HttpRequest, response: Any) -> Any:
        if is_token_api_request(request):
            return response
        return super().process_response(request, response)
