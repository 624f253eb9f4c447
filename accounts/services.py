from __future__ import annotations

from django.contrib.auth import authenticate
from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.models import User
from core.errors import InvalidCredentials


def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    with transaction.atomic():
        user = User.objects.create_user(username=username, password=password, email=email)
        token = Token.objects.create(user=user)
    return user, token.key


def token_obtain(*, username: str, password: str) -> str:
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        raise InvalidCredentials()
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)
