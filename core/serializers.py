"""Strict input fields and the strict serializer every request body goes through.

DRF's own fields are lenient where a contract should not be: ``IntegerField`` takes ``"1"``,
``1.0`` and non-ASCII digits (``int("٣") == 3``), ``CharField`` takes numbers. These take only
the JSON type the schema names.
"""

from __future__ import annotations

from typing import Any

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_noop
from rest_framework import serializers

from core.input import CONTROL_MESSAGE, has_control_characters

#: The largest integer a body may carry where the database keeps it (PostgreSQL ``integer``).
MAX_INT = 2**31 - 1


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only: no strings, no floats, no booleans; bounded by default."""

    default_error_messages = {"invalid": gettext_noop("A JSON integer is required.")}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_value", MAX_INT)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return data


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false`` only (DRF's own also takes ``"yes"``, ``1``, ``"on"``)."""

    default_error_messages = {"invalid": gettext_noop("A JSON boolean is required.")}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


#: What a moment in a request body must be: an ISO 8601 date and time with its offset.
DATETIME_MESSAGE = gettext_noop(
    "A date and time with its time zone is required (ISO 8601, e.g. 2026-05-01T18:00:00Z)."
)


class StrictDateTimeField(serializers.DateTimeField):
    """A JSON string holding an ISO 8601 date and time *with* its offset (``Z``, ``+02:00``):
    DRF's own reads a time without one in the server's zone, a guess about the sender's."""

    def to_internal_value(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise serializers.ValidationError(DATETIME_MESSAGE)
        try:
            parsed = parse_datetime(value)
        except ValueError:
            parsed = None
        if parsed is None or parsed.tzinfo is None:
            raise serializers.ValidationError(DATETIME_MESSAGE)
        return super().to_internal_value(value)


class StrictCharField(serializers.CharField):
    """A JSON string only, without control characters."""

    default_error_messages = {"invalid": gettext_noop("A JSON string is required.")}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if has_control_characters(data):
            raise serializers.ValidationError(CONTROL_MESSAGE)
        return str(super().to_internal_value(data))


class StrictRegexField(serializers.RegexField):
    """A JSON string only, without control characters, matching ``regex``."""

    default_error_messages = {
        "invalid": gettext_noop("This value does not match the required pattern.")
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError(StrictCharField.default_error_messages["invalid"])
        if has_control_characters(data):
            raise serializers.ValidationError(CONTROL_MESSAGE)
        return str(super().to_internal_value(data))


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo is an error rather than a silent default."""

    refused: dict[str, str] = {}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            errors = {
                key: [self.refused.get(key, gettext_noop("Unknown field."))]
                for key in data
                if key not in self.fields
            }
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
