"""OpenAPI additions: the problem+json document and every error code a client may meet."""

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
- Unknown fields in a request body are refused with `validation_error`.
- With `history: table_only`, events become readable to everyone once the match is over.
- Token lookups are cached per process for `FACEDOWN_TOKEN_CACHE_SECONDS` (default 30 s): a
  reset token stops working within that time.
"""


def problem_schema(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook."""
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
        },
        "required": ["type", "title", "status", "detail", "code"],
    }
    return result
