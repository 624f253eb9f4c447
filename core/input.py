"""What every request body and query value must be before any code reads it
(docs/api.md, "Conventions"): a bounded size, a bounded nesting depth, finite numbers, and no
control characters (PostgreSQL refuses NUL in text and JSON; the others are never meant).

``JSONParser`` is the API's one parser; ``BodyLimitMiddleware`` refuses an oversized body
before anything reads it, on every path.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase, JsonResponse
from django.utils import translation
from django.utils.translation import gettext_noop
from rest_framework import parsers

from core.errors import PayloadTooLarge, ValidationFailed
from core.problems import PROBLEM_CONTENT_TYPE, MalformedBody, problem_body, problem_vary
from core.text import Text

#: C0 controls except tab, newline and carriage return; DEL; the C1 controls.
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: The same, as a JSON Schema ``pattern`` (ECMA-262): a string with none of them.
NO_CONTROL_PATTERN = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"
CONTROL_MESSAGE = gettext_noop("Control characters (such as NUL) are not allowed.")


def max_body_bytes() -> int:
    return int(settings.FACEDOWN_MAX_BODY_BYTES)


def has_control_characters(value: str) -> bool:
    return CONTROL_CHARACTERS.search(value) is not None


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"Number out of range: {text[:20]}")
    return value


def _no_constants(text: str) -> Any:
    raise ValueError(f"{text} is not valid JSON")


def _depth_and_text_check(document: Any, limit: int) -> None:
    """Walk the parsed document without recursion: refuse nesting deeper than ``limit`` (as a
    parse error) and any string, key or value, holding a control character (as a validation
    error naming the field)."""
    pending: list[tuple[Any, int, str]] = [(document, 1, "")]
    while pending:
        node, depth, where = pending.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                raise MalformedBody(_too_deep(limit))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, value in items:
                name = str(key)
                if isinstance(key, str) and has_control_characters(key):
                    raise ValidationFailed({where or "non_field_errors": [CONTROL_MESSAGE]})
                pending.append((value, depth + 1, f"{where}.{name}" if where else name))
        elif isinstance(node, str) and has_control_characters(node):
            raise ValidationFailed({where or "non_field_errors": [CONTROL_MESSAGE]})


def _too_deep(limit: int) -> Text:
    return Text(gettext_noop("JSON nested deeper than %(limit)s levels."), limit=limit)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with limits: size (413 ``payload_too_large``), nesting depth and
    non-finite numbers (400 ``parse_error``), control characters (400 ``validation_error``)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge()
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
            document = json.loads(text, parse_float=_finite_float, parse_constant=_no_constants)
        except RecursionError:
            raise MalformedBody(_too_deep(settings.FACEDOWN_MAX_JSON_DEPTH)) from None
        except ValueError as exc:
            # The decoder's own words (where in the body it stopped) stay English.
            error = Text(gettext_noop("JSON parse error - %(error)s"), error=str(exc))
            raise MalformedBody(error) from None
        _depth_and_text_check(document, settings.FACEDOWN_MAX_JSON_DEPTH)
        return document


class BodyLimitMiddleware:
    """Answers 413 problem+json for a declared body above ``FACEDOWN_MAX_BODY_BYTES`` before
    any view, middleware or parser reads it (Django would otherwise raise RequestDataTooBig
    deep inside and answer an HTML page)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        declared = request.META.get("CONTENT_LENGTH") or ""
        # As Django reads it: anything but a plain number counts as no body.
        length = int(declared) if declared.isascii() and declared.isdigit() else 0
        if length > max_body_bytes():
            error = PayloadTooLarge()
            with translation.override(translation.get_language_from_request(request)):
                return payload_problem(error.status, error.code, error.title, error.detail)
        return self.get_response(request)


def payload_problem(status: int, code: str, title: str, detail: str) -> JsonResponse:
    response = JsonResponse(
        problem_body(status, code, title, detail),
        status=status,
        content_type=PROBLEM_CONTENT_TYPE,
    )
    problem_vary(response, profile=False)  # the browser's language, before any profile
    return response
