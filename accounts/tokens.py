"""Personal access tokens: issue, list, revoke (docs/programs.md).

A secret is ``fdp_`` and 40 hexadecimal digits (160 random bits), shown once; the database
keeps its SHA-256 digest, by which a request's token is found. Revoking one token records a
revocation of its user (``accounts.revocation``): every process drops that user's cached
tokens within a second and re-reads the others, and open streams opened with it end.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import AccessToken, User
from accounts.revocation import revocation_record
from accounts.scopes import BOT_PLAY, PLAY, SCOPES
from core.errors import NotFound, ValidationFailed
from core.text import Text

PREFIX = "fdp_"
#: What may follow the keyword: today's secrets, and the 40-digit keys issued before them.
SECRET = re.compile(r"(?:fdp_)?[0-9a-f]{40}", re.ASCII)
MAX_TOKENS = 100
MAX_LIFETIME = timedelta(days=366)


def secret_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def default_scopes(user: User) -> list[str]:
    """Everything the account may use: a bot plays with ``bot:play``, a person with ``play``."""
    unused = PLAY if user.is_bot else BOT_PLAY
    return [scope for scope in SCOPES if scope != unused]


def scopes_validate(user: User, scopes: list[str] | None) -> list[str]:
    if scopes is None:
        return default_scopes(user)
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown or not scopes:
        raise ValidationFailed(
            {"scopes": [Text(gettext_noop("Choose from %(choices)s."), choices=", ".join(SCOPES))]}
        )
    if BOT_PLAY in scopes and not user.is_bot:
        raise ValidationFailed(
            {"scopes": [gettext_noop("bot:play is for bot accounts (POST accounts/me/bot).")]}
        )
    if PLAY in scopes and user.is_bot:
        raise ValidationFailed({"scopes": [gettext_noop("A bot account plays with bot:play.")]})
    return [scope for scope in SCOPES if scope in scopes]


def token_issue(
    user: User,
    *,
    name: str,
    scopes: list[str] | None = None,
    expires_in: timedelta | None = None,
) -> tuple[AccessToken, str]:
    """A new token of ``user`` and its secret (the only time it is seen)."""
    chosen = scopes_validate(user, scopes)
    if expires_in is not None and not timedelta(minutes=1) <= expires_in <= MAX_LIFETIME:
        raise ValidationFailed({"expires_in": [gettext_noop("From 60 seconds to 366 days.")]})
    if AccessToken.objects.filter(user=user).count() >= MAX_TOKENS:
        raise ValidationFailed(
            {
                "name": [
                    Text(gettext_noop("An account holds at most %(high)s tokens."), high=MAX_TOKENS)
                ]
            }
        )
    secret = PREFIX + secrets.token_hex(20)
    now = timezone.now()
    token = AccessToken.objects.create(
        user=user,
        name=name,
        digest=secret_digest(secret),
        scopes=chosen,
        created_at=now,
        expires_at=now + expires_in if expires_in is not None else None,
    )
    return token, secret


def tokens_bulk_issue(users: list[User], *, name: str) -> list[str]:
    """One token with every scope for each of ``users`` (new accounts: no count to check), in
    one statement; their secrets, in order. For loading many accounts at once (the
    benchmarks)."""
    now = timezone.now()
    secrets_ = [PREFIX + secrets.token_hex(20) for _ in users]
    AccessToken.objects.bulk_create(
        AccessToken(
            user=user,
            name=name,
            digest=secret_digest(secret),
            scopes=default_scopes(user),
            created_at=now,
        )
        for user, secret in zip(users, secrets_, strict=True)
    )
    return secrets_


def token_listed(token: AccessToken) -> dict[str, Any]:
    return {
        "id": token.pk,
        "name": token.name,
        "scopes": list(token.scopes),
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        "last_used_at": token.last_used_at,
    }


def tokens_of(user: User) -> list[dict[str, Any]]:
    return [token_listed(t) for t in AccessToken.objects.filter(user=user).order_by("created_at")]


def token_delete(user: User, token_id: int) -> None:
    """Revoke one token of ``user`` (404 for any other)."""
    with transaction.atomic():
        deleted, _ = AccessToken.objects.filter(user=user, pk=token_id).delete()
        if not deleted:
            raise NotFound(gettext_noop("No token with this id."))
        revocation_record([user.pk])


def tokens_named_delete(user: User, *, name: str) -> int:
    """Inside a transaction: revoke every token of ``user`` named ``name``; how many went."""
    deleted, _ = AccessToken.objects.filter(user=user, name=name).delete()
    if deleted:
        revocation_record([user.pk])
    return deleted


def token_secret_replace(user: User, token_id: int) -> str:
    """Inside a revoking transaction: one token of ``user`` replaced by a new one with the same
    name, scopes and expiry (a new id: the streams and tickets of the old one end with it)."""
    old = AccessToken.objects.filter(user=user, pk=token_id).first()
    if old is None:
        raise NotFound(gettext_noop("No token with this id."))
    old.delete()
    secret = PREFIX + secrets.token_hex(20)
    AccessToken.objects.create(
        user=user,
        name=old.name,
        digest=secret_digest(secret),
        scopes=old.scopes,
        created_at=timezone.now(),
        expires_at=old.expires_at,
    )
    revocation_record([user.pk])
    return secret


def tokens_delete_all(user: User) -> None:
    """Inside a revoking transaction: every token of ``user`` goes, and the revocation is
    recorded for every process."""
    AccessToken.objects.filter(user=user).delete()
    revocation_record([user.pk])
