"""The ``Idempotency-Key`` header, applied to a POST handler of an APIView."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, cast

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from core.errors import ValidationFailed
from core.input import has_control_characters
from core.problems import PROBLEM_CONTENT_TYPE
from games.services.idempotency import (
    idempotency_claim,
    idempotency_complete,
    idempotency_release,
)

Handler = Callable[..., Response]
_KEPT_HEADERS = ("Location",)


def idempotent(handler: Handler) -> Handler:
    @functools.wraps(handler)
    def wrapper(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return handler(view, request, *args, **kwargs)
        if not 1 <= len(key) <= 255 or has_control_characters(key):
            raise ValidationFailed(
                {"Idempotency-Key": ["Must be 1 to 255 characters, none of them a control."]}
            )
        body = request.data  # a malformed body fails here, before the key is claimed
        record, stored = idempotency_claim(
            user=cast(User, request.user),
            method=request.method or "POST",
            path=request.path,
            key=key,
            body=body,
        )
        if stored is not None:
            return _replay(stored.status, stored.body)
        assert record is not None
        try:
            try:
                response = handler(view, request, *args, **kwargs)
            except Exception as exc:
                response = view.handle_exception(exc)  # 4xx problem, or re-raised
        except BaseException:
            idempotency_release(record=record)
            raise
        headers = {name: response[name] for name in _KEPT_HEADERS if response.has_header(name)}
        try:
            idempotency_complete(
                record=record,
                status=response.status_code,
                body={"data": response.data, "headers": headers},
                blind=getattr(response, "idempotency_blind", False),
            )
        except BaseException:
            # The answer could not be stored: never leave the key "in progress".
            idempotency_release(record=record)
            raise
        return response

    return wrapper


def _replay(status: int, stored: Any) -> Response:
    content_type = PROBLEM_CONTENT_TYPE if status >= 400 else None
    return Response(
        stored["data"], status=status, headers=stored["headers"], content_type=content_type
    )
