"""``/healthz``, ``/readyz`` and ``/metrics``: answered by ``ObservabilityMiddleware`` before
the rest of the stack, so they need no session, no authentication, no throttle and no
allowed ``Host`` (a container's or an orchestrator's probe calls by address)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from prometheus_client import CONTENT_TYPE_LATEST

from core.problems import PROBLEM_CONTENT_TYPE, problem_body
from observability.access import Verdict, metrics_access
from observability.health import readiness
from observability.metrics import exposition


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response


def healthz(request: HttpRequest) -> HttpResponse:
    """The process is alive and answers; nothing else is checked."""
    return _no_store(JsonResponse({"status": "ok"}))


def readyz(request: HttpRequest) -> HttpResponse:
    ready, checks = readiness()
    if ready:
        return _no_store(JsonResponse({"status": "ready", "checks": checks}))
    body = problem_body(
        503,
        "not_ready",
        "Not ready",
        "The database does not answer or has migrations to apply.",
        checks=checks,
    )
    response = JsonResponse(body, status=503, content_type=PROBLEM_CONTENT_TYPE)
    response["Retry-After"] = "5"
    return _no_store(response)


_REFUSALS = {
    Verdict.DISABLED: (404, "not_found", "Not found", "No resource at this address."),
    Verdict.UNAUTHENTICATED: (
        401,
        "not_authenticated",
        "Not authenticated",
        "The metrics need the bearer token.",
    ),
    Verdict.FORBIDDEN: (
        403,
        "permission_denied",
        "Permission denied",
        "The metrics are readable from the internal networks only.",
    ),
}


def metrics(request: HttpRequest) -> HttpResponse:
    verdict = metrics_access(request.META)
    if verdict is Verdict.ALLOWED:
        return _no_store(HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST))
    status, code, title, detail = _REFUSALS[verdict]
    response = JsonResponse(
        problem_body(status, code, title, detail), status=status, content_type=PROBLEM_CONTENT_TYPE
    )
    if verdict is Verdict.UNAUTHENTICATED:
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    return _no_store(response)
