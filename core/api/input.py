"""A request body through its serializer: the validated data, or a 400 problem."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.serializers import BaseSerializer


def validated(serializer_class: type[BaseSerializer], request: Request) -> dict[str, Any]:
    """The validated body; a ``ValidationError`` (400 ``validation_error``) otherwise."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
