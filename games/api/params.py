"""Query parameters, read strictly: a known name with a bad value is a 400 ``validation_error``
naming the parameter; unknown names are ignored, so cache-busters keep working. Numbers are
ASCII digits only (Python's ``int`` would read ``"٣"`` or fullwidth digits), and an empty number
(``?page_size=``) is a bad value, not the default. A raw value that names a row (a key, a name in
the path) goes through ``lookup_text`` first: PostgreSQL refuses NUL in text, so an unchecked
``%00`` would be a 500."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping

from django.utils.translation import gettext_noop

from core.errors import NotFound, ValidationFailed
from core.input import CONTROL_MESSAGE, has_control_characters
from core.text import Text, one_of
from games.catalog import engines

_ASCII_NUMBER = re.compile(r"[0-9]{1,18}", re.ASCII)
FLAG_VALUES = {"true": True, "false": False}


def param_text(params: Mapping[str, str], name: str) -> str | None:
    """The raw value, or None when absent or empty; control characters are refused."""
    value = params.get(name)
    if value is None or value == "":
        return None
    if has_control_characters(value):
        raise ValidationFailed({name: [CONTROL_MESSAGE]})
    return value


def lookup_text(value: str | None, *, max_length: int) -> str | None:
    """``value`` if it could name a stored row, else None (the caller answers its not-found):
    empty, longer than ``max_length`` or holding a control character names nothing."""
    if not value or len(value) > max_length or has_control_characters(value):
        return None
    return value


def param_int(params: Mapping[str, str], name: str, *, default: int, low: int, high: int) -> int:
    if params.get(name) is None:
        return default
    value = param_text(params, name) or ""
    if not _ASCII_NUMBER.fullmatch(value) or not low <= int(value) <= high:
        raise ValidationFailed(
            {
                name: [
                    Text(
                        gettext_noop("A whole number from %(low)s to %(high)s, in ASCII digits."),
                        low=low,
                        high=high,
                    )
                ]
            }
        )
    return int(value)


def param_choice(params: Mapping[str, str], name: str, choices: Iterable[str]) -> str | None:
    value = param_text(params, name)
    allowed = list(choices)
    if value is not None and value not in allowed:
        raise ValidationFailed({name: [one_of(allowed)]})
    return value


def param_flag(params: Mapping[str, str], name: str) -> bool:
    """``true`` or ``false`` (as the schema's boolean); absent is false, and an empty value
    (``?bots=``) is a bad value, as for a number."""
    if params.get(name) == "":
        raise ValidationFailed({name: [gettext_noop("true or false.")]})
    value = param_choice(params, name, FLAG_VALUES)
    return value is not None and FLAG_VALUES[value]


def game_slugs() -> list[str]:
    """The games a ``game`` query parameter may name, for the schema's enum."""
    return sorted(engine.slug for engine in engines())


_MATCH_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.ASCII)


def match_id_or_404(raw: str) -> uuid.UUID:
    """A lowercase hyphenated UUID (docs/api.md); anything else names no match."""
    if not _MATCH_ID.fullmatch(raw):
        raise NotFound(gettext_noop("No match with this id."))
    return uuid.UUID(raw)
