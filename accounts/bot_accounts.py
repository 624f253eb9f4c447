"""Bot accounts: an account a program plays with (docs/programs.md).

Becoming one is final and allowed only before the account has played: its ratings, seats and
history are then all a program's. Its tokens are revoked (they hold ``play``, which a bot
account cannot use); it creates ``bot:play`` tokens afterwards.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from accounts.authentication import forget_cached_tokens
from accounts.hooks import account_hooks
from accounts.models import User
from accounts.tokens import tokens_delete_all
from core.errors import BotRefused


def bot_account_make(user: User) -> User:
    with transaction.atomic():
        fresh = User.objects.select_for_update().get(pk=user.pk)
        if fresh.is_bot:
            return fresh
        if fresh.is_staff or any(hooks.has_played(fresh) for hooks in account_hooks()):
            raise BotRefused(
                gettext_noop("Only an account that has never played can become a bot account.")
            )
        fresh.is_bot = True
        fresh.save(update_fields=["is_bot"])
        tokens_delete_all(fresh)
    forget_cached_tokens()
    return fresh
