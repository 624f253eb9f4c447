"""What the API modules declare in the OpenAPI schema again and again: one declaration each."""

from __future__ import annotations

import re

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

PROBLEM = OpenApiResponse(description="application/problem+json with a stable `code`.")

#: What an ``Idempotency-Key`` may be: 1 to 255 printable ASCII characters, space to tilde, as
#: the IETF draft's structured-field string has them. No control character, and nothing a
#: header's Latin-1 decoding could garble. The schema's pattern, and the check
#: ``games.api.idempotent`` makes.
IDEMPOTENCY_KEY_PATTERN = "^[\\x20-\\x7e]{1,255}$"
IDEMPOTENCY_KEY = re.compile("[\x20-\x7e]{1,255}", re.ASCII)

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": IDEMPOTENCY_KEY_PATTERN},
    OpenApiParameter.HEADER,
    required=False,
    description="Replays the stored answer of an earlier request with this key (24 h): 1 to "
    "255 printable ASCII characters (space to tilde); another key is a 400 "
    "`validation_error`, the same key with another body a 422 `idempotency_key_reused`.",
)

IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="An ETag of an earlier answer: 304 if nothing you may see has changed.",
)
