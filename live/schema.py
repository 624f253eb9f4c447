"""The streams in the OpenAPI schema (they are async Django views, which drf-spectacular does
not see): paths, parameters, media types, and every event a stream carries, described."""

from __future__ import annotations

from typing import Any

from core.openapi import operation_id
from games.events import CATALOGUE
from notify.kinds import DESCRIPTIONS

_FORMATS = """
**Server-Sent Events** (`Accept: text/event-stream`, the default): each item is
`event: <type>` + `id: <seq>` (match events only) + `data: <one line of JSON>` and a blank
line; a comment line `: keep-alive` every 15 s (`FACEDOWN_LIVE_KEEPALIVE_SECONDS`); a first
`retry: 2000` line sets EventSource's reconnect delay.

**NDJSON** (`Accept: application/x-ndjson`): one JSON object per line,
`{"type": …, "id": <seq or null>, "data": …}`, and an empty line as keep-alive.

Authentication: the token header, the web session, or `?ticket=` from
`POST /api/v1/accounts/stream-ticket` (for EventSource). Served by the ASGI server
(docs/live.md)."""

_MATCH = (
    "The match as it happens, for the requester: first a `snapshot` item (the match resource "
    "exactly as `GET /matches/{id}` returns it; no `id`), then every event as it commits, "
    "redacted exactly as `GET /matches/{id}/events` shows it to the requester (the `data` of "
    "each item is one element of that feed's `results`; the SSE `id` and the NDJSON `id` are "
    "its `seq`).\n\nResume: with `Last-Event-ID` (header, as EventSource sends it, or "
    "`?last_event_id=`) there is no snapshot; the stream starts with the events after that seq "
    "— nothing lost, nothing repeated. A seat sees another seat's sealed move only as "
    "`move_submitted` (with `disclose_submitted`), then the reveal in `step_resolved`; "
    "spectators never see a hidden value.\n\nEvent types: "
) + ", ".join(f"`{name}` ({event.doc})" for name, event in CATALOGUE.items())

_USER = (
    "The requester's notifications across all their matches: first a `snapshot` item whose "
    'data is `{"awaiting_me": [match ids]}` (the matches waiting for their move), then one '
    "item per notification (its SSE `event:` is the type; no `id:`), its data "
    '`{"id": …, "type": …, "match": <match id>, "at": <ISO time>, "game": …, "step": …, …}` '
    "(public data only). Types: "
    + ", ".join(f"`{kind}` ({doc})" for kind, doc in DESCRIPTIONS.items())
)

_TOURNAMENT = (
    "A tournament's standings as they change: first a `standings` item (as `GET "
    "/tournaments/{id}/standings` returns them), then one each time a round ends or the "
    "tournament finishes; built from finished matches only. No `id`: a client that reconnects "
    "starts again with the current standings."
)

_STREAM_CONTENT = {
    "text/event-stream": {"schema": {"type": "string"}},
    "application/x-ndjson": {"schema": {"type": "string"}},
}
_TICKET = {
    "name": "ticket",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": "A stream ticket naming this stream (POST /api/v1/accounts/stream-ticket).",
}
_ACCEPT = {
    "name": "Accept",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "enum": ["text/event-stream", "application/x-ndjson"]},
}


#: The live paths' 429s: their opens are throttled, and so is how many may be open at once.
LIVE_429 = {
    "description": "throttled: too many opens from this address or user; too_many_streams: "
    "as many streams and waiting long-polls are open as this user or address may hold "
    "(docs/reliability.md). Retry after Retry-After seconds.",
    "headers": {
        "Retry-After": {
            "description": "Seconds to wait before opening again.",
            "schema": {"type": "integer", "minimum": 1},
        }
    },
}


def _operation(name: str, description: str, parameters: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "operationId": name,
        "description": description + "\n" + _FORMATS,
        "tags": ["live"],
        "parameters": parameters,
        "responses": {
            "200": {"description": "The stream.", "content": _STREAM_CONTENT},
            "400": {
                "description": "validation_error: a bad `last_event_id`; not_supported: "
                "asked of the WSGI server (streams are the ASGI server's)."
            },
            "401": {
                "description": "not_authenticated: no or bad credentials, an expired ticket, "
                "or a ticket whose token or session was revoked."
            },
            "403": {"description": "permission_denied: the ticket does not name this stream."},
            "429": LIVE_429,
        },
    }


def stream_paths(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the three stream endpoints."""
    paths = result.setdefault("paths", {})
    detail = paths.get("/api/v1/matches/{match_id}", {}).get("get", {})
    security = detail.get("security")
    match_parameters = [
        {"name": "match_id", "in": "path", "required": True, "schema": {"type": "string"}},
        {
            "name": "last_event_id",
            "in": "query",
            "required": False,
            "schema": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
            "description": "Resume after this seq (as the Last-Event-ID header).",
        },
        {
            "name": "Last-Event-ID",
            "in": "header",
            "required": False,
            "schema": {"type": "integer", "minimum": 0},
            "description": "Resume after this seq; EventSource sends it when it reconnects.",
        },
        _TICKET,
        _ACCEPT,
    ]
    match = _operation(
        operation_id("/api/v1/matches/{match_id}/stream", "retrieve"), _MATCH, match_parameters
    )
    match["responses"]["404"] = {"description": "not_found."}
    user = _operation(
        operation_id("/api/v1/accounts/me/stream", "retrieve"), _USER, [_TICKET, _ACCEPT]
    )
    user["responses"]["400"] = {"description": "not_supported: asked of the WSGI server."}
    cup = _operation(
        operation_id("/api/v1/tournaments/{tournament_id}/stream", "retrieve"),
        _TOURNAMENT,
        [
            {"name": "tournament_id", "in": "path", "required": True, "schema": {"type": "string"}},
            _TICKET,
            _ACCEPT,
        ],
    )
    cup["responses"]["400"] = {"description": "not_supported: asked of the WSGI server."}
    cup["responses"]["404"] = {"description": "not_found."}
    for operation in (match, user, cup):
        if security is not None:
            operation["security"] = security
    paths["/api/v1/matches/{match_id}/stream"] = {"get": match}
    paths["/api/v1/accounts/me/stream"] = {"get": user}
    paths["/api/v1/tournaments/{tournament_id}/stream"] = {"get": cup}
    events = paths.get("/api/v1/matches/{match_id}/events", {}).get("get")
    if events is not None:  # its long-poll (?wait=) is limited like a stream
        events.setdefault("responses", {})["429"] = LIVE_429
    return result
