"""Which language a person reads: the one in their profile, else their browser's
``Accept-Language`` (or the language cookie the client sets for visitors), else English.

Pages (the web client, its JavaScript catalogue, the unsubscribe and verification answers) go
through ``PageLanguageMiddleware``. The JSON API does not: its success bodies, ETags and the
move and poll routes are the same in every language and cost nothing more, so the language is
looked up only where the API produces text for people, its errors (``core.problems``). Mail and
pushes use the recipient's profile (``language_of``), never the sender's request.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils import translation
from django.utils.cache import patch_vary_headers

#: Paths that produce no text for people in any language: the API (its errors choose their
#: own) and the client's static files (no session look-up for each of them).
UNTRANSLATED_PREFIXES = ("/api/", "/assets/", "/static/")


def supported(code: str | None) -> str | None:
    """The configured language for ``code`` ("de-AT" → "de"), or None when there is none."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def language_of(user: object) -> str:
    """The language a user receives mail and pushes in: their profile's, else the default."""
    return supported(getattr(user, "language", "")) or settings.LANGUAGE_CODE


def request_language(request: HttpRequest, user: object | None = None) -> str:
    """The language for an answer to this request: the profile of ``user`` (the request's own
    user when not given), else the cookie and ``Accept-Language``, else the default."""
    who = user if user is not None else getattr(request, "user", None)
    if who is not None and getattr(who, "is_authenticated", False):
        chosen = supported(getattr(who, "language", ""))
        if chosen:
            return chosen
    return translation.get_language_from_request(request)


class PageLanguageMiddleware:
    """``LocaleMiddleware`` for everything but ``/api/``, with the profile first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.path_info.startswith(UNTRANSLATED_PREFIXES):
            return self.get_response(request)
        language = request_language(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        try:
            response = self.get_response(request)
        finally:
            translation.deactivate()
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", language)
        return response
