"""``POST /api/v1/matches/{id}/moves`` answered before Django's URL resolver, middleware chain
and DRF's dispatch, through the same doors.

A move is the request a server of sealed moves answers most, and ≈ a third of the instructions
it cost the web process were the framework around the move service: Django's handler and its
eleven middleware, the resolver, DRF's request, negotiation, dispatch and response
(docs/benchmarks.md, ninth round). This WSGI wrapper takes only the plain case of a move and
hands everything else to Django unchanged:

- taken: ``POST`` to exactly that path with no query string, ``Authorization: Token …``, no
  cookie (CSRF's would be renewed by its middleware), a JSON body of a declared length within
  ``FACEDOWN_MAX_BODY_BYTES``, ``Accept`` absent, ``*/*`` or ``application/json``, no
  ``Idempotency-Key`` (replays stay with ``games.api.idempotent``);
- given back to Django before anything changed: a host ``ALLOWED_HOSTS`` refuses, a due SSL
  redirect, a body that is not JSON or not the usual shape of a move, and a token DRF's
  authentication refuses (or cannot look up), so every such answer stays Django's and DRF's
  own (a refused token is then looked up twice: a rare request, not a hot one).

Taken requests go through the same code as the full stack, called directly: the request id,
the request metric and the access log (``observability.middleware.request_finish``), DRF's token
authentication with its cache, the view's permission and throttle checks, ``move_input_fast``,
the move service, DRF's JSON renderer, the response hooks of the security, CORS, common and
clickjacking middleware, and Django's ``request_started`` / ``request_finished`` signals (the
connection's health and age). An error after authentication (a throttle, a rule, the database)
is answered by DRF's own ``handle_exception`` and ``finalize_response`` on the view, and a crash
as Django's handler answers it (its log line, ``got_request_exception``, the 500 view);
with Sentry on, each taken request gets its own scope, as Sentry's Django integration gives
Django's handler.
``tests/api/test_fast_moves.py`` compares both paths' status, headers and body for every
answer a move can get, and fails when a middleware is added that this module does not account
for (``ACCOUNTED``); the path turns itself off when the view's parser, renderer or content
negotiation is no longer the one it stands in for. ``FACEDOWN_FAST_MOVES=0`` turns it off.
The embedded default (``manage.py serve``: one ASGI server for everything) and the ASGI
processes of a deployment answer moves through the whole stack; the web server of
``config/web.py`` (and gunicorn's) serves this module.
"""

from __future__ import annotations

import io
import re
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core import signals
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponse
from django.urls import set_script_prefix, set_urlconf
from django.utils.log import log_response
from django.utils.module_loading import import_string
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from core.input import JSONParser, max_body_bytes
from core.negotiation import ContentNegotiation
from core.problems import server_error_view
from games.api import serializers as s
from games.api.matches import MatchMovesApi, match_id_or_404
from games.services.moves import move_submit
from observability import request_id
from observability.middleware import request_finish

PATH = re.compile(r"/api/v1/matches/([^/]+)/moves")
ROUTE = "match-moves"
_JSON_TYPES = frozenset({"application/json", "application/json; charset=utf-8"})
_ACCEPTS = frozenset({"", "*/*", "application/json"})
_DIGITS = re.compile(r"[0-9]{1,12}", re.ASCII)
_MATCH_ID = "facedown.fast_move_match_id"
_SENTRY = "facedown.fast_move_sentry"

#: Every middleware of ``settings.MIDDLEWARE`` and what a taken request gets of it. A new
#: middleware fails ``tests/api/test_fast_moves.py`` until it is accounted for here.
ACCOUNTED: dict[str, str] = {
    "observability.middleware.ObservabilityMiddleware": "request id, metric, access log",
    "django.middleware.security.SecurityMiddleware": "both hooks (a due SSL redirect: not taken)",
    "corsheaders.middleware.CorsMiddleware": "response hook (a POST is never a preflight)",
    "whitenoise.middleware.WhiteNoiseMiddleware": "static files only",
    "core.input.BodyLimitMiddleware": "a longer declared body is not taken",
    "core.token_requests.SessionMiddleware": "skips token requests",
    "django.middleware.common.CommonMiddleware": "its host check and response hook (a valid path:"
    " no slash to add; PREPEND_WWW or DISALLOWED_USER_AGENTS set: nothing taken)",
    "django.middleware.csrf.CsrfViewMiddleware": "DRF's views are exempt; sets no cookie here",
    "core.token_requests.AuthenticationMiddleware": "skips token requests (DRF authenticates)",
    "core.token_requests.MessageMiddleware": "skips token requests",
    "django.middleware.clickjacking.XFrameOptionsMiddleware": "response hook",
}
#: The middleware whose ``process_response`` a taken response goes through, innermost first.
_RESPONSE_HOOKS = (
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.common.CommonMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
)

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def plain_api_request(environ: dict[str, Any]) -> bool:
    """What both fast paths require of a request besides its method and path: a token, JSON or
    anything accepted, and nothing that would change what the framework does around the view."""
    return not (
        # ?format= picks a renderer in DRF's negotiation; neither route takes a parameter.
        environ.get("QUERY_STRING")
        # A script prefix (SCRIPT_NAME, or Apache's SCRIPT_URL / REDIRECT_URL): the root only.
        or environ.get("SCRIPT_NAME")
        or "SCRIPT_URL" in environ
        or "REDIRECT_URL" in environ
        # A cookie may be CSRF's, which the CSRF middleware would renew.
        or "HTTP_COOKIE" in environ
        or environ.get("HTTP_ACCEPT", "") not in _ACCEPTS
        or environ.get("HTTP_AUTHORIZATION", "")[:6].lower() != "token "
    )


def _no_response(request: Any) -> Any:
    raise AssertionError("only the middleware's response hooks are called")


def _sentry_names(route: str) -> None:
    """The transaction named after the route, as Sentry's Django integration names it when
    Django's handler resolves a request (its default ``transaction_style="url"``)."""
    import sentry_sdk

    sentry_sdk.get_current_scope().set_transaction_name(route, source="route")


class FastMoves:
    """The WSGI application: ``FastMoves(django_application)``."""

    #: The route's name, as the access log and the request metric name it.
    route = ROUTE
    #: The route's pattern, as Sentry's Django integration names the transaction.
    sentry_route = "/api/v1/matches/{match_id}/moves"

    def __init__(self, app: WsgiApp) -> None:
        self.app = app
        # Django's handler, also when ``app`` is another fast path in front of it.
        self.handler_class: type = getattr(app, "handler_class", type(app))
        self._parser = JSONParser()
        self._renderer = JSONRenderer()
        view = MatchMovesApi()
        self._allow = ", ".join(view.allowed_methods)
        self._authenticator = view.get_authenticators()[0]
        middleware = {path: import_string(path)(_no_response) for path in _RESPONSE_HOOKS}
        self._security = middleware["django.middleware.security.SecurityMiddleware"]
        self._hooks = tuple(
            getattr(m, "process_response", None) or m.add_response_headers
            for m in middleware.values()
        )
        self._reported: Any = None  # the Sentry-wrapped path, made when Sentry is first seen on
        self.enabled = self._stands_in_for(view) and view.parser_classes == [JSONParser]

    @staticmethod
    def _stands_in_for(view: APIView) -> bool:
        """Whether a fast path may answer for ``view``: its classes are those the path calls or
        stands in for, and no setting changes what Django's handler would do around it."""
        return (
            bool(getattr(settings, "FACEDOWN_FAST_MOVES", True))
            # DEBUG's technical error pages are Django's to render.
            and not settings.DEBUG
            and view.renderer_classes == [JSONRenderer]
            and view.content_negotiation_class is ContentNegotiation
            and view.permission_classes == [IsAuthenticated]
            and not any(db.get("ATOMIC_REQUESTS") for db in settings.DATABASES.values())
            and settings.FORCE_SCRIPT_NAME is None
            and not settings.PREPEND_WWW
            and not settings.DISALLOWED_USER_AGENTS
        )

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        match_id = self._taken(environ) if self.enabled else None
        if match_id is None:
            return self.app(environ, start_response)
        environ[_MATCH_ID] = match_id
        sentry = sys.modules.get("sentry_sdk")  # imported only when configured (observability)
        if sentry is not None and sentry.get_client().is_active():
            # As Sentry's Django integration wraps Django's handler: a scope per request.
            environ[_SENTRY] = True
            return self._sentry_wrapped()(environ, start_response)
        return self._serve(environ, start_response)

    def _sentry_wrapped(self) -> Any:
        if self._reported is None:
            from sentry_sdk.integrations.wsgi import SentryWsgiMiddleware

            self._reported = SentryWsgiMiddleware(self._serve, settings.USE_X_FORWARDED_HOST)
        return self._reported

    def _serve(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        match_id = environ.pop(_MATCH_ID)
        start = time.perf_counter()
        # What Django's WSGIHandler and BaseHandler do before a request.
        set_script_prefix("/")  # a request with a script prefix is not taken
        set_urlconf(settings.ROOT_URLCONF)
        signals.request_started.send(sender=self.handler_class, environ=environ)
        # WSGIRequest rewrites both in ``environ`` (decoded): Django must get them as sent.
        sent: dict[str, Any] = {k: environ[k] for k in ("PATH_INFO", "SCRIPT_NAME") if k in environ}
        request = WSGIRequest(environ)
        if environ.pop(_SENTRY, False):
            _sentry_names(self.sentry_route)
        token = request_id.activate(request_id.from_request(environ))
        try:
            try:
                response = self._answer(request, match_id)
            except Exception as exc:  # as Django's handler answers an uncaught exception
                response = self._crash(request, exc)
            if response is not None:
                for hook in self._hooks:
                    response = hook(request, response)
                request_finish(request, response, self.route, start)
        finally:
            request_id.deactivate(token)
        if response is None:
            # Django's after all. Its request_started fires again, which closes only a
            # connection past its age or broken, as at the start of any request.
            environ.pop("SCRIPT_NAME", None)
            environ.update(sent)
            return self.app(environ, start_response)
        # What Django's handlers do with every answer (BaseHandler.get_response): close the
        # request's uploads (a JSON body has none) and log an error answer. The server's
        # ``close()`` of the response sends ``request_finished``.
        request.close()
        if response.status_code >= 400:
            log_response(
                "%s: %s", response.reason_phrase, request.path, response=response, request=request
            )
        headers = [
            *response.items(),
            *(("Set-Cookie", c.output(header="")) for c in response.cookies.values()),
        ]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        return response

    def _taken(self, environ: dict[str, Any]) -> str | None:
        """The match id of a request this path answers; None for anything else."""
        if environ.get("REQUEST_METHOD") != "POST":
            return None
        found = PATH.fullmatch(environ.get("PATH_INFO", ""))
        if found is None:
            return None
        if (
            "HTTP_IDEMPOTENCY_KEY" in environ
            or environ.get("CONTENT_TYPE") not in _JSON_TYPES
            or not plain_api_request(environ)
        ):
            return None
        length = environ.get("CONTENT_LENGTH") or ""
        if not _DIGITS.fullmatch(length) or int(length) > max_body_bytes():
            return None
        return found.group(1)

    def _admitted(self, request: WSGIRequest) -> bool:
        """Neither a host ``ALLOWED_HOSTS`` refuses (as CommonMiddleware asks it) nor a due SSL
        redirect."""
        try:
            request.get_host()
        except Exception:
            return False
        return self._security.process_request(request) is None

    def _authenticated(self, request: WSGIRequest) -> Any:
        """The token's user, set on ``request`` as DRF sets it; None for a token DRF refuses
        or cannot look up (its 401, or the database's 503, are then Django's)."""
        try:
            credentials = self._authenticator.authenticate(request)  # type: ignore[arg-type]
        except Exception:
            return None
        if credentials is None:
            return None
        request.user, request.auth = credentials  # type: ignore[attr-defined]
        return request.user

    def _answer(self, request: WSGIRequest, match_id: str) -> Any:
        if not self._admitted(request):
            return None
        body = request.read(max_body_bytes() + 1)
        request.environ["wsgi.input"] = io.BytesIO(body)  # for Django, if it is handed on
        try:
            data = self._parser.parse(io.BytesIO(body), "application/json", {"encoding": "utf-8"})
        except Exception:
            return None  # DRF's parse error
        move = s.move_input_fast(data)
        if move is None:
            return None  # the serializer's errors
        user = self._authenticated(request)
        if user is None:
            return None
        view = MatchMovesApi(args=(), kwargs={"match_id": match_id}, format_kwarg=None)
        try:
            # DRF's order (APIView.initial); both read only .user, .META and .method.
            view.check_permissions(request)  # type: ignore[arg-type]
            view.check_throttles(request)  # type: ignore[arg-type]
            accepted = move_submit(
                match_id=match_id_or_404(match_id),
                user=user,
                step=move["step"],
                move=move.get("move"),
                commitment=move.get("commitment"),
            )
        except Exception as exc:
            return self._error(request, view, exc)
        response = HttpResponse(
            self._renderer.render(accepted.as_dict()),
            status=200 if accepted.repeated else 202,
            content_type="application/json",
        )
        response["Allow"] = self._allow
        return response

    @staticmethod
    def _crash(request: WSGIRequest, exc: Exception) -> HttpResponse:
        """What Django's handler answers an exception no view handled, ``DEBUG`` off (see
        ``_stands_in_for``): the ``got_request_exception`` signal (Sentry's report), the
        project's ``handler500`` and the ``django.request`` log line with the traceback.
        DRF's handler has already answered every exception with a status of its own."""
        signals.got_request_exception.send(sender=None, request=request)
        # Called in the ``except`` block: ``handler500`` reads ``sys.exc_info()``.
        response: HttpResponse = server_error_view(request)
        log_response(
            "%s: %s",
            response.reason_phrase,
            request.path,
            response=response,
            request=request,
            exception=exc,
        )
        return response

    def _error(self, request: WSGIRequest, view: MatchMovesApi, exc: Exception) -> Any:
        """The answer the full stack gives ``exc``: DRF's handling on the view, else Django's."""
        drf_request = Request(request, authenticators=[self._authenticator])
        drf_request.user, drf_request.auth = request.user, request.auth  # type: ignore[attr-defined]
        view.request = drf_request
        view.headers = view.default_response_headers
        renderer, media_type = view.perform_content_negotiation(drf_request)
        drf_request.accepted_renderer, drf_request.accepted_media_type = renderer, media_type
        try:
            response = view.handle_exception(exc)
        except Exception as unhandled:
            return self._crash(request, unhandled)
        response = view.finalize_response(drf_request, response)
        response.render()
        return response
