"""JSON for what the database stores and returns: orjson, with the standard library where
orjson would answer differently.

Every move loads its match's engine state and the step's sealed moves, and writes the state,
its events and its receipt back (``jsonb``); an events page loads each event's payload. orjson
does each in a fraction of the standard library's time (docs/benchmarks-history.md). Where the
two differ:

- orjson reads an integer beyond 64 bits as a float: text with a run of 19 or more digits is
  read by the standard library (a long fraction then too, which only costs time);
- orjson refuses to write an integer beyond 64 bits, or a lone surrogate: the standard library
  writes those (and PostgreSQL refuses the surrogate as before).

The text written differs only in spacing and escapes, which ``jsonb`` does not keep. Nothing
here is for bytes that are hashed or signed (receipts, ETags, the verifier's canonical form):
those keep their exact standard-library form.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

# A run of 19 digits, found without a regular expression: every ASCII digit becomes "0" and
# every other byte a space, then a plain substring search: it scans every state and payload
# read from the database, and the regex ``[0-9]{19}`` cost many times more per character.
_DIGITS_ONLY = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_RUN = b"0" * 19


def _has_long_number(data: bytes) -> bool:
    return len(data) >= 19 and _LONG_RUN in data.translate(_DIGITS_ONLY)


def loads(text: str | bytes | bytearray | memoryview) -> Any:
    """``json.loads``, faster."""
    if isinstance(text, str):
        if _has_long_number(text.encode("utf-8", "surrogatepass")):
            return json.loads(text)
    else:
        text = bytes(text)
        if _has_long_number(text):
            return json.loads(text)
    return orjson.loads(text)


def dumps(value: Any) -> bytes:
    """``json.dumps(value).encode()``, faster; dict keys that are not strings become strings
    as the standard library makes them."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError: a value orjson does not write
        return json.dumps(value).encode()
