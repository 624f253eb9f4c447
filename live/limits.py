"""Who may open a stream or a long-poll, and how many they may hold open.

Every open of a match stream, the user stream or a waiting long-poll is first counted, before
any credential is checked (so a flood of bad credentials is throttled too):

1. per client address (``core.client_address``: the proxy's ``X-Forwarded-For`` only as far as
   ``FACEDOWN_TRUSTED_PROXY_HOPS`` says), at ``FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS`` opens per
   window, then per user at ``FACEDOWN_THROTTLE_LIVE_OPENS`` (the API's fixed-window
   counters, ``core.throttling``): over either, 429 ``throttled``;
2. then it takes a slot (live/slots.py) among the ones the address
   (``FACEDOWN_LIVE_MAX_STREAMS_PER_ADDRESS``) and the user
   (``FACEDOWN_LIVE_MAX_STREAMS_PER_USER``) and the access token
   (``FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN``) hold open: when one is full, 429
   ``too_many_streams``. The slot is freed when the stream or long-poll ends.

The user is found here only to count them: from the ticket's signed user id, the token (its
cached lookup) or the session's user id. The view authenticates as before and answers 401 or
403 itself; its refusal frees the slot at once.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core import signing
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponseBase, JsonResponse
from django.utils import translation
from django.utils.translation import gettext_noop
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import token_from_header, token_identity
from accounts.models import User
from core.client_address import client_address
from core.errors import FacedownError, TooManyStreams
from core.languages import request_language
from core.problems import PROBLEM_CONTENT_TYPE, problem_body, problem_vary
from core.throttling import Slot, reserved_counts
from live.auth import _SALT as TICKET_SALT
from live.database import bounded
from live.slots import Held, Limit, slots
from observability.metrics import request_observe

access_log = logging.getLogger("facedown.access")

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class Throttled(FacedownError):
    status, code, title = 429, "throttled", gettext_noop("Too many requests")
    default_detail = gettext_noop(
        "Too many streams or long-polls opened; retry after Retry-After seconds."
    )

    def __init__(self, *, retry_after: float, user_id: int | None = None) -> None:
        super().__init__(retry_after=retry_after)
        #: Whose opens were counted (None: the address's), for the problem's language.
        self.user_id = user_id


def _rate(text: str) -> tuple[int, int]:
    """``"600/min"`` as (600, 60), as DRF reads its rates."""
    count, _, period = text.partition("/")
    return int(count), _PERIODS[period.strip()[0]]


def _window(kind: str, ident: str, rate: str, now: float) -> Slot:
    count, seconds = _rate(rate)
    window = int(now // seconds)
    return (
        f"throttle_live_opens_{kind}_{ident}:{window}",
        seconds + 1,
        count,
        (window + 1) * seconds,
    )


def _over(slot: Slot, now: float) -> float | None:
    """Count one open in the window; the seconds to wait when it is over the limit."""
    key, _, most, ends = slot
    if reserved_counts.take([slot])[key] <= most:
        return None
    return max(1.0, ends - now)


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _who(request: HttpRequest) -> tuple[int | None, int | None]:
    """The user and the access token the credentials name, for counting only (the view
    authenticates); None for what they do not name."""
    ticket = request.GET.get("ticket")
    if ticket is not None:
        try:
            payload = signing.loads(
                ticket, salt=TICKET_SALT, max_age=settings.FACEDOWN_LIVE_TICKET_SECONDS
            )
        except signing.BadSignature:
            return None, None
        if not isinstance(payload, dict):
            return None, None
        return _number(payload.get("u")), _number(payload.get("t"))
    try:
        secret = token_from_header(request.headers.get("Authorization", ""))
        if secret is not None:
            user, grant = token_identity(secret)
            return int(user.pk), grant.id
    except AuthenticationFailed:
        return None, None
    cookie = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if cookie:
        engine = import_module(settings.SESSION_ENGINE)
        value = engine.SessionStore(cookie).get(SESSION_KEY)
        user_id = int(value) if isinstance(value, str | int) and str(value).isdigit() else None
        return user_id, None
    return None, None


@dataclass
class Opener:
    address: str
    user_id: int | None
    token_id: int | None = None


def _opener(request: HttpRequest) -> Opener | Throttled:
    now = time.time()
    address = client_address(request.META)
    wait = _over(_window("addr", address, settings.FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS, now), now)
    if wait is not None:
        return Throttled(retry_after=wait)
    try:
        user_id, token_id = _who(request)
    except SuspiciousOperation:  # e.g. too many query fields: the view answers it
        user_id, token_id = None, None
    if user_id is not None:
        wait = _over(_window("user", str(user_id), settings.FACEDOWN_THROTTLE_LIVE_OPENS, now), now)
        if wait is not None:
            return Throttled(retry_after=wait, user_id=user_id)
    return Opener(address, user_id, token_id)


def _language(request: HttpRequest, user_id: int | None) -> str:
    """The counted user's profile language, else the browser's (as the API's problems)."""
    user = User.objects.filter(pk=user_id, is_active=True).first() if user_id else None
    return (
        request_language(request, user) if user else translation.get_language_from_request(request)
    )


async def problem(
    exc: FacedownError, retry_after: float, request: HttpRequest, user_id: int | None
) -> JsonResponse:
    extra = {k: v for k, v in exc.extra.items() if k != "retry_after"}
    language = await bounded(_language)(request, user_id)
    with translation.override(language):
        body = problem_body(exc.status, exc.code, exc.title, exc.detail, **extra)
    response = JsonResponse(body, status=exc.status, content_type=PROBLEM_CONTENT_TYPE)
    response["Content-Language"] = language
    problem_vary(response)
    response["Retry-After"] = str(int(retry_after + 0.999))
    return response


@dataclass
class Admission:
    opener: Opener
    held: Held


async def admit(request: HttpRequest) -> Admission | JsonResponse:
    """Count this open and take its slot, or the 429 to answer."""
    opener = await bounded(_opener)(request)
    if isinstance(opener, Throttled):
        return await problem(opener, float(opener.extra["retry_after"]), request, opener.user_id)
    limits = [
        Limit(f"live:slots:addr:{opener.address}", settings.FACEDOWN_LIVE_MAX_STREAMS_PER_ADDRESS)
    ]
    if opener.user_id is not None:
        limits.append(
            Limit(f"live:slots:user:{opener.user_id}", settings.FACEDOWN_LIVE_MAX_STREAMS_PER_USER)
        )
    if opener.token_id is not None:
        per_token = settings.FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN
        limits.append(Limit(f"live:slots:token:{opener.token_id}", per_token))
    taken = await slots().take(limits)
    if isinstance(taken, Limit):
        return await problem(TooManyStreams(), TooManyStreams.retry_after, request, opener.user_id)
    return Admission(opener, taken)


async def send_plain(response: HttpResponseBase, send: Any) -> None:
    """An answer with a body (not a stream) as ASGI messages."""
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.items()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})  # type: ignore[attr-defined]


async def release(admission: Admission | JsonResponse) -> None:
    if isinstance(admission, Admission):
        await slots().give_back(admission.held)


def access_logged(
    request: HttpRequest, route: str, status: int, start: float, user: int | None
) -> None:
    """The access log's line (observability/middleware.py's format and fields) and the request
    metric for an answer sent without Django's handler. Only the route's name is written,
    never the path or the query: a ticket never reaches a log."""
    seconds = time.perf_counter() - start
    request_observe(route, "GET", status, seconds)
    if access_log.isEnabledFor(logging.INFO):
        access_log.info(
            "%s %s %s %.1fms user=%s",
            request.method,
            route,
            status,
            seconds * 1000,
            user if user is not None else "-",
            extra={
                "http_method": request.method,
                "route": route,
                "status": status,
                "duration_ms": round(seconds * 1000, 2),
                "user_id": user,
            },
        )
