"""Who is asking: the signed-in user of an API request (the adapters' kit, ``core.api``)."""

from __future__ import annotations

from typing import cast

from rest_framework.request import Request

from accounts.models import User


def requester(request: Request) -> User:
    """The authenticated user; for views whose permissions already refused the anonymous."""
    return cast(User, request.user)
