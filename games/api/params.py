"""Query parameters, read strictly: a known name with a bad value is a 400 ``validation_error``
naming the parameter; unknown names are ignored, so cache-busters keep working. Numbers are
ASCII digits only (Python's ``int`` would read ``"٣"`` or fullwidth digits)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from core.errors import ValidationFailed
from core.input import CONTROL_MESSAGE, has_control_characters

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


def param_int(params: Mapping[str, str], name: str, *, default: int, low: int, high: int) -> int:
    value = param_text(params, name)
    if value is None:
        return default
    if not _ASCII_NUMBER.fullmatch(value) or not low <= int(value) <= high:
        raise ValidationFailed({name: [f"A whole number from {low} to {high}, in ASCII digits."]})
    return int(value)


def param_choice(params: Mapping[str, str], name: str, choices: Iterable[str]) -> str | None:
    value = param_text(params, name)
    allowed = list(choices)
    if value is not None and value not in allowed:
        raise ValidationFailed({name: [f"One of {', '.join(allowed)}."]})
    return value


def param_flag(params: Mapping[str, str], name: str) -> bool:
    value = param_choice(params, name, FLAG_VALUES)
    return value is not None and FLAG_VALUES[value]
