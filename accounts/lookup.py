"""Finding an account by the name another player typed: names are unique regardless of case
(``accounts_user_username_ci_unique``, over ``Lower(username)``) and normalised to NFKC when
registered, so a lookup normalises and compares the same way, and ``Alice`` finds ``alice``."""

from __future__ import annotations

from django.db.models.functions import Lower

from accounts.models import User
from accounts.usernames import username_normalise


def user_named(name: str, *, active_only: bool = False) -> User | None:
    """The account called ``name`` in any case, or None. Reads the case-insensitive unique
    index (``Lower(username)``)."""
    users = User.objects.alias(name_lower=Lower("username")).filter(
        name_lower=username_normalise(name).lower()
    )
    if active_only:
        users = users.filter(is_active=True)
    return users.first()
