"""OpenAPI additions: the problem+json document, every error code a client may meet, and the
error statuses each operation may answer."""

from __future__ import annotations

from typing import Any

from core.errors import ERROR_CODES

CONVENTIONS = """

## Errors
Every error is `application/problem+json` (RFC 9457) with a stable `code`:

| status | code |
|---|---|
{rows}

When several apply, the first in this order wins: auth → parse → validation of the envelope →
not_found → not_seated → stale_step → match_not_active → wrong_phase → not_your_turn →
already_submitted → commitment_reused → commitment_mismatch → illegal_move.

## Choices this server makes where the v1 contract leaves room
- A move for a step that has not opened yet answers 409 `wrong_phase`.
- `stale_step` carries `recorded`: whether a move *you* submitted is recorded for that step
  (a move made for your seat after you resigned does not count).
- Unknown fields in a request body are refused with `validation_error`; so are a wrong JSON
  type (`"step": "1"`, `true` for a number), a control character (NUL included) in any string,
  and an unknown value of a known query parameter. Unknown query parameter names are ignored.
- A body above `FACEDOWN_MAX_BODY_BYTES` (default 64 KiB) answers 413 `payload_too_large`;
  JSON nested deeper than `FACEDOWN_MAX_JSON_DEPTH` (default 32) answers 400 `parse_error`.
- With `history: table_only`, events become readable to everyone once the match is over.
- Token lookups are cached per process for `FACEDOWN_TOKEN_CACHE_SECONDS` (default 30 s); a
  logout, reset token or deactivated account is refused by every server within
  `FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS` (default 1 s).
"""


PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
PROBLEM_CONTENT = "application/problem+json"

#: Errors any operation may answer, whatever its own handler raises.
_ALWAYS = {
    "429": "throttled: too many requests (see Retry-After).",
    "500": "server_error: the server failed to answer.",
    "503": "service_unavailable: the database is briefly away; retry after Retry-After seconds.",
}
#: Headers sent with an error status, whatever the operation.
_ERROR_HEADERS = {
    "503": {
        "Retry-After": {
            "description": "Seconds to wait before sending the request again.",
            "schema": {"type": "integer", "minimum": 1},
        }
    },
}
_AUTHENTICATED = {
    "401": "not_authenticated: no valid token.",
    "403": "permission_denied: e.g. a session without its CSRF token.",
}
_WITH_BODY = {
    "400": "parse_error (malformed, or nested deeper than the limit) or validation_error "
    "(with `errors`).",
    "413": "payload_too_large: the body is larger than the server accepts.",
    "415": "unsupported_media_type: the body must be JSON.",
}
_IDEMPOTENT = {
    "400": "validation_error: a malformed Idempotency-Key.",
    "409": "idempotency_in_progress: a request with this key is still being processed.",
    "422": "idempotency_key_reused: the key was used with a different body.",
}
_WITH_PATH_PARAMETERS = {"404": "not_found."}


def problem_schema(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the Problem component, the error table, and
    problem+json bodies on every error response."""
    rows = "\n".join(
        f"| {status} | `{code}` |"
        for code, status in sorted(ERROR_CODES.items(), key=lambda item: (item[1], item[0]))
    )
    info = result.setdefault("info", {})
    info["description"] = info.get("description", "") + CONVENTIONS.format(rows=rows)
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = {
        "type": "object",
        "description": "RFC 9457 problem details.",
        "properties": {
            "type": {"type": "string", "format": "uri"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "code": {"type": "string", "enum": sorted(ERROR_CODES)},
            "errors": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
                "description": "validation_error only: messages by field path.",
            },
            "recorded": {"type": "boolean", "description": "stale_step only."},
            "forfeited": {
                "type": "boolean",
                "description": "illegal_move of a reveal only: the seat is forfeited.",
            },
            "why_not": {
                "type": "string",
                "description": "entry_refused and tournament_not_open of a tournament's join "
                'only: the entry condition not met (docs/api.md, "Tournaments").',
            },
            "username": {
                "type": "string",
                "description": "invitation_refused and invitations_exhausted only: the "
                "recipient who refuses, or whom the hourly budget is spent on.",
            },
            "limit": {
                "type": "integer",
                "description": "invitations_exhausted: the hourly budget; entry_refused for "
                "a rating: the tournament's min_rating or max_rating.",
            },
            "rating": {
                "type": "integer",
                "description": "entry_refused for a rating only: the player's rating as "
                "players read it (the unit of min_rating and max_rating).",
            },
            "until": {
                "type": "string",
                "format": "date-time",
                "description": "reporting_suspended only: when the player may report again.",
            },
        },
        "required": ["type", "title", "status", "detail", "code"],
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            _document_errors(operation)
    return result


def _document_errors(operation: dict[str, Any]) -> None:
    """Every error status the operation may answer, each with a problem+json body."""
    responses = operation.setdefault("responses", {})
    parameters = operation.get("parameters", [])
    expected = dict(_ALWAYS)
    if {} not in operation.get("security", [{}]):
        expected.update(_AUTHENTICATED)
    if "requestBody" in operation:
        expected.update(_WITH_BODY)
    if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in parameters):
        expected.update(_IDEMPOTENT)
    if any(p["in"] == "path" for p in parameters):
        expected.update(_WITH_PATH_PARAMETERS)
    for status, description in expected.items():
        responses.setdefault(status, {"description": description})
    for status, response in responses.items():
        if status.isdigit() and int(status) >= 400:
            response["content"] = {PROBLEM_CONTENT: {"schema": PROBLEM_REF}}
        if status in _ERROR_HEADERS:
            response.setdefault("headers", {}).update(_ERROR_HEADERS[status])
    operation["responses"] = dict(sorted(responses.items()))


def nullable_refs(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: a nullable nested object as OpenAPI 3.0.3 means it.

    drf-spectacular writes ``{"allOf": [{"$ref": …}], "nullable": true}``, but in 3.0.3
    ``nullable`` only widens a ``type`` in the same schema, so strict validators and client
    generators refuse the ``null`` the server sends (e.g. ``result`` before a match ends).
    """
    _rewrite_nullable_refs(result)
    return result


_NULL = {"type": "object", "nullable": True, "enum": [None]}


def _rewrite_nullable_refs(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _rewrite_nullable_refs(item)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        _rewrite_nullable_refs(value)
    all_of = node.get("allOf")
    if node.get("nullable") is True and isinstance(all_of, list) and len(all_of) == 1:
        del node["allOf"], node["nullable"]
        node["oneOf"] = [all_of[0], _NULL]
