"""Log in by username regardless of case (names are unique regardless of case)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from accounts.models import User
from accounts.usernames import username_normalise


class CaseInsensitiveModelBackend(ModelBackend):
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if username is not None:
            name = username_normalise(username)
            found = User.objects.filter(username__iexact=name).order_by("id").first()
            username = found.username if found is not None else name
        return super().authenticate(request, username=username, password=password, **kwargs)
