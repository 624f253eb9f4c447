"""Option validation: the JSON Schema of a game's options, its defaults and its seat count.

Errors are keyed ``options.<field>`` (``options`` for the whole object) or ``seats``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema

from cardgames.engines.messages import Reason
from cardgames.engines.protocol import InvalidOptions


def check_options(
    validator: jsonschema.Draft202012Validator,
    schema: Mapping[str, Any],
    options: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate ``options`` against ``schema`` and fill the defaults.

    Returns the filled options and the errors found, keyed ``options.<field>`` (``options`` for
    an error about the whole object). Integers given as integral floats become ints.
    """
    raw: object = {} if options is None else options
    if isinstance(raw, Mapping):
        raw = dict(raw)
    errors: dict[str, list[str]] = {}
    properties: Mapping[str, Any] = schema["properties"]
    for error in validator.iter_errors(raw):
        if error.validator == "additionalProperties" and isinstance(raw, dict):
            for key in sorted(str(k) for k in raw if k not in properties):
                errors.setdefault(f"options.{key}", []).append(Reason("option_unknown"))
            continue
        path = "".join(f".{part}" for part in error.absolute_path)
        errors.setdefault(f"options{path}", []).append(schema_reason(error))
    if not isinstance(raw, dict):
        return {}, errors or {"options": [Reason("options_not_object")]}
    filled: dict[str, Any] = {}
    for key, prop in properties.items():
        value = raw.get(key, prop["default"])
        if prop.get("type") == "integer" and isinstance(value, float) and value.is_integer():
            value = int(value)
        filled[key] = value
    return filled, errors


def schema_reason(error: jsonschema.ValidationError) -> str:
    """The schema's refusal as a ``Reason`` for the validators the option schemas use (the
    words of ``jsonschema``'s own messages); any other as ``jsonschema`` says it."""
    value = repr(error.instance)
    expected = error.validator_value
    if error.validator == "type":
        types = expected if isinstance(expected, list) else [expected]
        return Reason("option_type", value=value, types=", ".join(map(repr, types)))
    if error.validator == "enum":
        return Reason("option_enum", value=value, choices=repr(expected))
    if error.validator in ("minimum", "maximum"):
        return Reason(f"option_{error.validator}", value=value, limit=repr(expected))
    return str(error.message)


def check_seats(slug: str, players: int, low: int, high: int) -> dict[str, list[str]]:
    """An error for ``seats`` unless ``low <= players <= high``."""
    if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
        return {"seats": [Reason("seats_range", game=slug, low=low, high=high)]}
    return {}


def validated_options(
    validator: jsonschema.Draft202012Validator,
    schema: Mapping[str, Any],
    options: Mapping[str, Any] | None,
    *,
    slug: str,
    players: int,
    low: int,
    high: int,
) -> dict[str, Any]:
    """The filled options of a game whose only checks are its schema and its seat count."""
    filled, errors = check_options(validator, schema, options)
    errors.update(check_seats(slug, players, low, high))
    raise_if(errors)
    return filled


def raise_if(errors: Mapping[str, list[str]]) -> None:
    if errors:
        raise InvalidOptions(errors)
