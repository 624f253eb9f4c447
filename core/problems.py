"""Every error as RFC 9457 problem+json with a stable ``code``.

``problem_exception_handler`` is DRF's exception handler; ``not_found_view`` and
``server_error_view`` cover what Django answers outside DRF (unknown URLs, crashes).

``title``, ``detail`` and the field messages are written in the reader's language
(``core.languages``: the profile, else ``Accept-Language``, else English), looked up here and
only here, so the success path of the API never activates a language; ``code`` stays English.

A database that cannot answer (``OperationalError``, ``InterfaceError``: a restart, a dropped
connection, a timeout) is ``503 service_unavailable`` with ``Retry-After`` on both paths, never
a 500: the request did not fail, the service is briefly away. Django drops the broken
connection when the request ends (the error marks it, ``CONN_HEALTH_CHECKS`` checks it before
the next request's first query), so the process recovers by itself once PostgreSQL is back.
"""

from __future__ import annotations

import logging
import math
import sys
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponseBase, JsonResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext_noop
from rest_framework import exceptions as drf
from rest_framework.response import Response

from core.drf_messages import drf_said
from core.errors import FacedownError, PayloadTooLarge, ServiceUnavailable
from core.languages import request_language
from core.text import Text, said

logger = logging.getLogger(__name__)

#: Errors of the database connection rather than of the request.
DATABASE_UNAVAILABLE: tuple[type[Exception], ...] = (OperationalError, InterfaceError)

PROBLEM_CONTENT_TYPE = "application/problem+json"
_TYPE_BASE = "https://facedown.invalid/problems/"
#: What a problem's language depends on (``problem_language``): the profile (found through the
#: token or the session cookie), the language cookie, ``Accept-Language``. A shared cache keeps
#: one copy per combination, so it never hands one reader's language to another.
LANGUAGE_VARY = ("Accept-Language", "Cookie", "Authorization")
#: Where no profile is read (the browser's language only): the cookie and the header.
BROWSER_LANGUAGE_VARY = ("Accept-Language", "Cookie")


def problem_vary(response: HttpResponseBase, *, profile: bool = True) -> None:
    """Name what the problem's language came from in ``Vary``."""
    patch_vary_headers(response, LANGUAGE_VARY if profile else BROWSER_LANGUAGE_VARY)


class MalformedBody(drf.ParseError):
    """DRF's ``parse_error`` with a detail that has parameters: DRF keeps only a detail's
    text, so the ``Text`` is kept here for the problem writer to translate."""

    def __init__(self, text: Text) -> None:
        super().__init__(text)
        self.text = text


_DRF_CODES: list[tuple[type[Exception], str, str]] = [
    (drf.NotAuthenticated, "not_authenticated", gettext_noop("Not authenticated")),
    (drf.AuthenticationFailed, "not_authenticated", gettext_noop("Not authenticated")),
    (drf.ParseError, "parse_error", gettext_noop("Malformed request body")),
    (drf.ValidationError, "validation_error", gettext_noop("Invalid request")),
    (drf.PermissionDenied, "permission_denied", gettext_noop("Permission denied")),
    (drf.NotFound, "not_found", gettext_noop("Not found")),
    (Http404, "not_found", gettext_noop("Not found")),
    (drf.MethodNotAllowed, "method_not_allowed", gettext_noop("Method not allowed")),
    (drf.NotAcceptable, "not_acceptable", gettext_noop("Not acceptable")),
    (drf.UnsupportedMediaType, "unsupported_media_type", gettext_noop("Unsupported media type")),
    (drf.Throttled, "throttled", gettext_noop("Too many requests")),
]


def _field_said(message: object) -> str:
    """A field message in the active language: ours and DRF's plain ones from the catalogues,
    DRF's with parameters from the message they were formatted from."""
    translated = said(message)
    if translated == str(message):
        return drf_said(translated) or translated
    return translated


def problem_body(status: int, code: str, title: str, detail: str, **extra: Any) -> dict[str, Any]:
    """The problem in the active language (``problem_language`` chooses it)."""
    errors = extra.get("errors")
    if isinstance(errors, dict):
        extra["errors"] = {
            field: [_field_said(m) for m in messages] if isinstance(messages, list) else messages
            for field, messages in errors.items()
        }
    return {
        "type": _TYPE_BASE + code,
        "title": said(title),
        "status": status,
        "detail": said(detail),
        "code": code,
        **extra,
    }


def problem_language(request: Any, exc: BaseException | None = None) -> str:
    """The language a problem is written in. A database that cannot answer is not asked for
    the reader's profile: their browser's language then."""
    if request is None:
        return translation.get_language() or "en"
    if isinstance(exc, DATABASE_UNAVAILABLE):
        return translation.get_language_from_request(request)
    try:
        user = getattr(request, "user", None)
        return request_language(request, user)
    except (OperationalError, InterfaceError, drf.APIException):
        return translation.get_language_from_request(request)


def flatten_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as ``{"field.path": ["message"]}``."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = "non_field_errors" if key == "non_field_errors" and not prefix else str(key)
            flat.update(flatten_errors(value, f"{prefix}.{name}" if prefix else name))
        return flat
    if isinstance(detail, list) and detail and all(isinstance(d, (dict, list)) for d in detail):
        flat = {}
        for index, value in enumerate(detail):
            flat.update(flatten_errors(value, f"{prefix}.{index}" if prefix else str(index)))
        return flat
    messages = detail if isinstance(detail, list) else [detail]
    return {prefix or "non_field_errors": [str(m) for m in messages if str(m)]}


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    language = problem_language(context.get("request"), exc)
    with translation.override(language):
        response = _problem_response(exc)
    if response is not None:
        response["Content-Language"] = language
        problem_vary(response)
    return response


def _problem_response(exc: Exception) -> Response | None:
    if isinstance(exc, DATABASE_UNAVAILABLE):
        _log_unavailable(exc)
        exc = ServiceUnavailable()
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    if isinstance(exc, FacedownError):
        body = problem_body(exc.status, exc.code, exc.title, exc.detail, **exc.extra)
        headers = _retry_after(exc)
        return Response(body, status=exc.status, headers=headers, content_type=PROBLEM_CONTENT_TYPE)
    for cls, code, title in _DRF_CODES:
        if isinstance(exc, cls):
            return _drf_problem(exc, code, title)
    return None


def _retry_after(exc: FacedownError) -> dict[str, str]:
    if isinstance(exc, ServiceUnavailable):
        return {"Retry-After": str(exc.retry_after)}
    return {}


def _log_unavailable(exc: BaseException) -> None:
    """One line for the operator: the error's class, SQLSTATE and first line. Never the SQL's
    parameters (they may hold a sealed move) nor the traceback's locals."""
    cause = exc.__cause__ or exc
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    logger.warning(
        "database unavailable, answered 503: %s (sqlstate %s): %s",
        type(cause).__name__,
        getattr(cause, "sqlstate", None),
        message,
    )


def _throttled(wait: int) -> Text:
    """DRF's own words, which it formats before it looks them up (so never translated)."""
    if wait == 1:
        return Text(
            gettext_noop("Request was throttled. Expected available in %(wait)s second."), wait=wait
        )
    return Text(
        gettext_noop("Request was throttled. Expected available in %(wait)s seconds."), wait=wait
    )


def _drf_problem(exc: Exception, code: str, title: str) -> Response:
    status = getattr(exc, "status_code", 404)
    headers: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    wait = getattr(exc, "wait", None)
    if isinstance(exc, drf.Throttled) and wait is not None:
        headers["Retry-After"] = str(int(wait) + 1)
    if isinstance(exc, drf.ValidationError):
        extra["errors"] = flatten_errors(exc.detail)
        detail = gettext_noop("The request has invalid fields.")
    elif isinstance(exc, MalformedBody):
        detail = exc.text
    elif isinstance(exc, drf.Throttled) and wait is not None:
        detail = _throttled(math.ceil(wait))
    elif isinstance(exc, drf.APIException):
        detail = str(exc.detail)
    else:
        detail = gettext_noop("Not found.")
    if status == 403 and code == "not_authenticated":
        code = "permission_denied"
    return Response(
        problem_body(status, code, title, detail, **extra),
        status=status,
        headers=headers,
        content_type=PROBLEM_CONTENT_TYPE,
    )


def not_found_view(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    with translation.override(problem_language(request)):
        body = problem_body(
            404,
            "not_found",
            gettext_noop("Not found"),
            gettext_noop("No resource at this address."),
        )
    response = JsonResponse(body, status=404, content_type=PROBLEM_CONTENT_TYPE)
    problem_vary(response)
    return response


def bad_request_view(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """What Django answers for a request it refuses before any view (a body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``, a disallowed host, a malformed request)."""
    with translation.override(translation.get_language_from_request(request)):
        if isinstance(exception, RequestDataTooBig):
            error = PayloadTooLarge()
            body = problem_body(error.status, error.code, error.title, error.detail)
            status = error.status
        else:
            body = problem_body(
                400,
                "parse_error",
                gettext_noop("Malformed request"),
                gettext_noop("The request was refused."),
            )
            status = 400
    response = JsonResponse(body, status=status, content_type=PROBLEM_CONTENT_TYPE)
    problem_vary(response, profile=False)
    return response


def server_error_view(request: HttpRequest) -> JsonResponse:
    """Django's ``handler500``: called while the uncaught exception is being handled, so
    ``sys.exc_info`` names it; a database that cannot answer is a 503, anything else a 500."""
    exc = sys.exc_info()[1]
    # The browser's language only: the profile may need the database that just failed.
    language = translation.get_language_from_request(request)
    if isinstance(exc, DATABASE_UNAVAILABLE):
        unavailable = ServiceUnavailable()
        with translation.override(language):
            body = problem_body(503, unavailable.code, unavailable.title, unavailable.detail)
        response = JsonResponse(body, status=503, content_type=PROBLEM_CONTENT_TYPE)
        response["Retry-After"] = str(unavailable.retry_after)
        problem_vary(response, profile=False)
        return response
    with translation.override(language):
        body = problem_body(
            500,
            "server_error",
            gettext_noop("Server error"),
            gettext_noop("The server failed to answer."),
        )
    response = JsonResponse(body, status=500, content_type=PROBLEM_CONTENT_TYPE)
    problem_vary(response, profile=False)
    return response
