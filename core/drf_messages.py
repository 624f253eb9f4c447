"""DRF's field messages with parameters, in the reader's language.

A serializer formats such a message when it validates ("Ensure this value is less than or
equal to 20."), before any language is active (the API activates none on its way to an
answer), so the text no longer matches DRF's catalogue. The problem writer finds the field
message it was made from (each field class's ``default_error_messages``, as DRF documents
them for custom fields) and formats that message again in the active language.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from django.utils import translation
from rest_framework import fields, relations, serializers

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@functools.cache
def _templates() -> tuple[tuple[re.Pattern[str], Any], ...]:
    found: dict[str, Any] = {}
    for module in (fields, relations, serializers):
        for cls in vars(module).values():
            if not (isinstance(cls, type) and issubclass(cls, fields.Field)):
                continue
            for message in cls.default_error_messages.values():
                with translation.override("en"):
                    english = str(message)
                if _PLACEHOLDER.search(english):
                    found.setdefault(english, message)
    patterns = []
    for english, message in found.items():
        parts = _PLACEHOLDER.split(english)
        # parts alternate: text, name, text, name, …, text
        regex = "".join(
            re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)"
            for index, part in enumerate(parts)
        )
        patterns.append((re.compile(regex, re.DOTALL), message))
    return tuple(patterns)


def drf_said(text: str) -> str | None:
    """``text`` in the active language if it is one of DRF's messages with parameters."""
    for pattern, message in _templates():
        matched = pattern.fullmatch(text)
        if matched is not None:
            return str(message).format(**matched.groupdict())
    return None
