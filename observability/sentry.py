"""Error reports through Sentry's SDK, only when ``SENTRY_DSN`` is set.

Configured so that nothing hidden leaves the server: no local variables in stack frames
(a service's locals hold sealed moves and hidden state), no personal data, no request bodies,
and ``scrub`` (the ``before_send`` hook) removes what is left that could hold a move: the
request's data, cookies, query string and headers beyond a few harmless ones, the SQL
breadcrumbs (their parameters are moves), the arguments of log messages, and every value
under a key a move or a secret uses, anywhere in the event.
"""

from __future__ import annotations

from typing import Any

import sentry_sdk

#: Keys whose values may be a move, a hidden card or a secret, wherever they appear.
HIDDEN_KEYS = frozenset(
    {
        "card",
        "cards",
        "bid",
        "value",
        "move",
        "moves",
        "payload",
        "hand",
        "hands",
        "deck",
        "state",
        "client_seed",
        "seed",
        "nonce",
        "salt",
        "commitment",
        "receipt_salt",
        "private",
        "password",
        "token",
        "authorization",
        "cookie",
        "secret",
    }
)
FILTERED = "[Filtered]"
_DROPPED_CRUMBS = frozenset({"query", "redis"})
_SAFE_HEADERS = frozenset({"user-agent", "x-request-id", "content-type", "content-length"})


def _scrub_keys(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: FILTERED if str(key).lower() in HIDDEN_KEYS else _scrub_keys(value)
            for key, value in node.items()
        }
    if isinstance(node, (list, tuple)):
        return [_scrub_keys(item) for item in node]
    return node


def _strip_frame_vars(event: dict[str, Any]) -> None:
    for exception in (event.get("exception") or {}).get("values") or []:
        for frame in (exception.get("stacktrace") or {}).get("frames") or []:
            frame.pop("vars", None)
    for thread in (event.get("threads") or {}).get("values") or []:
        for frame in (thread.get("stacktrace") or {}).get("frames") or []:
            frame.pop("vars", None)


def scrub(event: dict[str, Any], hint: dict[str, Any] | None = None) -> dict[str, Any]:
    request = event.get("request")
    if isinstance(request, dict):
        headers = request.get("headers") or {}
        event["request"] = {
            "method": request.get("method"),
            "url": str(request.get("url") or "").split("?", 1)[0],
            "headers": {k: v for k, v in headers.items() if str(k).lower() in _SAFE_HEADERS},
        }
    logentry = event.get("logentry")
    if isinstance(logentry, dict):
        logentry.pop("params", None)
    breadcrumbs = event.get("breadcrumbs")
    if isinstance(breadcrumbs, dict):
        breadcrumbs["values"] = [
            {**crumb, "data": _scrub_keys(crumb.get("data") or {})}
            for crumb in breadcrumbs.get("values") or []
            if crumb.get("category") not in _DROPPED_CRUMBS
        ]
    event.pop("extra", None)  # Celery's task arguments, anything passed with ``extra=``
    for section in ("contexts", "tags", "user"):
        if section in event:
            event[section] = _scrub_keys(event[section])
    _strip_frame_vars(event)
    return event


def sentry_init(
    dsn: str,
    *,
    environment: str | None = None,
    release: str | None = None,
    traces_sample_rate: float = 0.0,
    transport: Any = None,
) -> None:
    """Start error reporting (``transport``: the SDK's extension point, for tests)."""
    sentry_sdk.init(
        dsn=dsn,
        environment=environment or None,
        release=release or None,
        include_local_variables=False,
        # No personal data: the SDK's default (``send_default_pii`` unset; setting it, even to
        # False, is deprecated in favour of ``data_collection``).
        max_request_body_size="never",
        traces_sample_rate=traces_sample_rate,
        before_send=scrub,  # type: ignore[arg-type]
        before_send_transaction=scrub,  # type: ignore[arg-type]
        before_breadcrumb=lambda crumb, hint: (
            None if crumb.get("category") in _DROPPED_CRUMBS else crumb
        ),
        transport=transport,
    )
