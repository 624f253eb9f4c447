"""The outermost middleware: request id, probes, request metrics and the access log.

For every request: take or make its id (``observability.request_id``) and hold it in the
context for the request's log lines and tasks; answer ``/healthz``, ``/readyz`` and
``/metrics`` at once; otherwise run the rest of the stack. Then count the answer and its
duration under the route's name, send the id back in ``X-Request-ID`` and write one access
log line. A synchronous request is watched meanwhile (``observability.watchdog``: logged if it
runs past a bound). The cost per request is measured in docs/observability.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.functional import SimpleLazyObject

from core.token_requests import SESSION_USER
from observability import request_id, views
from observability.metrics import request_observe
from observability.routes import route_name
from observability.watchdog import watchdog

access_log = logging.getLogger("facedown.access")

Probe = Callable[[HttpRequest], HttpResponseBase]
PROBES: dict[str, tuple[str, Probe]] = {
    "/healthz": ("healthz", views.healthz),
    "/readyz": ("readyz", views.readyz),
    "/metrics": ("metrics", views.metrics),
}
_PROBE_METHODS = frozenset({"GET", "HEAD"})


def user_id(request: HttpRequest) -> int | None:
    """The authenticated user's id, if the request already knows it; never a query for it."""
    user = request.__dict__.get("user")
    if isinstance(user, SimpleLazyObject):
        # The session's user, not loaded until a view asks (core/token_requests.py notes it).
        user = request.__dict__.get(SESSION_USER)
    if user is None:
        return None
    pk = getattr(user, "pk", None)
    return pk if isinstance(pk, int) else None


def _probe(request: HttpRequest) -> tuple[str, Probe] | None:
    if request.method in _PROBE_METHODS:
        return PROBES.get(request.path_info)
    return None


def request_finish(
    request: HttpRequest, response: HttpResponseBase, route: str, start: float
) -> None:
    seconds = time.perf_counter() - start
    rid = request_id.current() or ""
    response[request_id.HEADER] = rid
    method = str(request.method)
    request_observe(route, method, response.status_code, seconds)
    if access_log.isEnabledFor(logging.INFO):
        uid = user_id(request)
        access_log.info(
            "%s %s %s %.1fms user=%s",
            method,
            route,
            response.status_code,
            seconds * 1000,
            uid if uid is not None else "-",
            extra={
                "http_method": method,
                "route": route,
                "status": response.status_code,
                "duration_ms": round(seconds * 1000, 2),
                "user_id": uid,
            },
        )


def _request_id(request: HttpRequest) -> str:
    """The request's id. An ASGI layer in front (the long-poll's, live/longpoll.py) may have
    given it one already, for a request it hands on more than once: each time is logged under
    it. Otherwise none is current here (every request resets it on the way out)."""
    return request_id.current() or request_id.from_request(request.META)


class ObservabilityMiddleware:
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
        start = time.perf_counter()
        rid = _request_id(request)
        token = request_id.activate(rid)
        dog = watchdog()
        key = None
        try:
            probe = _probe(request)
            if probe is not None:
                route, view = probe
                response = view(request)
            else:
                if dog is not None:
                    dog.watch()
                    key = dog.enter(request, rid)
                response = self.get_response(request)
                route = route_name(request)
            request_finish(request, response, route, start)
            return response
        finally:
            if key is not None and dog is not None:
                dog.leave(key)
            request_id.deactivate(token)

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        start = time.perf_counter()
        token = request_id.activate(_request_id(request))
        try:
            probe = _probe(request)
            if probe is not None:
                route, view = probe
                response = await sync_to_async(view)(request)
            else:
                answer: Awaitable[HttpResponseBase] = self.get_response(request)
                response = await answer
                route = route_name(request)
            request_finish(request, response, route, start)
            return response
        finally:
            request_id.deactivate(token)
