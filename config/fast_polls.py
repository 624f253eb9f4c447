"""``GET /api/v1/matches/{id}`` with ``If-None-Match`` (a client's poll, mostly answered 304)
answered before Django's URL resolver, middleware chain and DRF's dispatch, through the same
doors, as ``config/fast_moves.py`` answers a move.

A 304 is a read of one prepared query and a hash, and most of its ≈ 1.9 million instructions
were the framework around it (docs/benchmarks.md, eleventh round). This path takes only the
plain poll and hands everything else to the application behind it unchanged:

- taken: ``GET`` of exactly that path with no query string, a non-empty ``If-None-Match``,
  ``Authorization: Token …``, no cookie, no body, ``Accept`` absent, ``*/*`` or
  ``application/json``;
- handed on before anything is counted: a host ``ALLOWED_HOSTS`` refuses, a due SSL redirect,
  and a token DRF's authentication refuses (or cannot look up).

Taken polls get the same doors as a fast move (``FastMoves``): the request id, the metric and
the access log, the token authentication with its cache, the view's permission and throttle
checks, the response hooks of the security, CORS, common and clickjacking middleware, Django's
request signals, DRF's handling of an error after authentication (a throttle, an unknown
match, the database) and Django's of a crash. The answer itself is the view's own
(``match_detail_response``): the 304 with the reader's ETag, or the 200 with the match as this
reader may see it. ``tests/api/test_fast_polls.py`` compares both paths' status, headers, body,
log lines and queries. ``FACEDOWN_FAST_MOVES=0`` turns both fast paths off.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse

from config.fast_moves import FastMoves, WsgiApp, plain_api_request
from games.api.matches import MatchDetailApi, match_detail_response

PATH = re.compile(r"/api/v1/matches/([^/]+)")
ROUTE = "match-detail"


class FastPolls(FastMoves):
    """The WSGI application: ``FastPolls(FastMoves(django_application))``."""

    route = ROUTE

    def __init__(self, app: WsgiApp) -> None:
        super().__init__(app)
        view = MatchDetailApi()
        view.setup(HttpRequest())  # as Django's view does per request: HEAD, as GET, in Allow
        self._allow = ", ".join(view.allowed_methods)
        self._authenticator = view.get_authenticators()[0]
        self.enabled = self._stands_in_for(view)

    def _taken(self, environ: dict[str, Any]) -> str | None:
        """The match id of a poll this path answers; None for anything else."""
        if environ.get("REQUEST_METHOD") != "GET":
            return None
        found = PATH.fullmatch(environ.get("PATH_INFO", ""))
        if (
            found is None
            or not environ.get("HTTP_IF_NONE_MATCH")
            or environ.get("CONTENT_LENGTH") not in (None, "", "0")
            or not plain_api_request(environ)
        ):
            return None
        return found.group(1)

    def _answer(self, request: WSGIRequest, match_id: str) -> Any:
        if not self._admitted(request):
            return None
        user = self._authenticated(request)
        if user is None:
            return None
        view = MatchDetailApi(format_kwarg=None)
        view.setup(request, match_id=match_id)  # as Django's view: HEAD in Allow, the kwargs
        try:
            # DRF's order (APIView.initial); both read only .user, .META and .method.
            view.check_permissions(request)  # type: ignore[arg-type]
            view.check_throttles(request)  # type: ignore[arg-type]
            response = match_detail_response(match_id, user, request.META, self._respond)
        except Exception as exc:
            return self._error(request, view, exc)  # type: ignore[arg-type]
        response["Allow"] = self._allow
        return response

    def _respond(self, code: int, data: dict[str, Any] | None) -> HttpResponse:
        """What DRF's ``Response(data, status=code)`` renders to: JSON, or no body and no
        ``Content-Type`` at all."""
        if data is None:
            response = HttpResponse(status=code)
            del response["Content-Type"]
            return response
        return HttpResponse(
            self._renderer.render(data), status=code, content_type="application/json"
        )
