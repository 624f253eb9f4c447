"""How apps above ``accounts`` take part in closing and exporting an account.

An app registers one ``AccountHooks`` at start-up (``AppConfig.ready``); ``accounts.services``
runs every registered hook, in registration order, without importing the app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accounts.models import User


@dataclass(frozen=True)
class AccountHooks:
    #: ``close(user)`` runs before an account is anonymised (e.g. forfeit its live seats).
    close: Callable[[User], None]
    #: ``export(user)`` returns sections of the account's data export, merged into it.
    export: Callable[[User], dict[str, Any]]
    #: ``renamed(user, old_name)`` runs once a closed account has its placeholder name, so
    #: records that spelled the old name out (e.g. event data) can be rewritten.
    renamed: Callable[[User, str], None] = lambda user, old_name: None
    #: ``email_changed(user)`` runs once a new address is saved (at registration too), after
    #: its transaction: e.g. mail a link that verifies it.
    email_changed: Callable[[User], None] = lambda user: None
    #: ``password_reset_requested(email)`` runs for every reset request, whether or not an
    #: account has the address: it hands the mailing to a job (``accounts.services.
    #: password_reset_mail`` for each active account that verified the address), so the
    #: request's time tells nothing.
    password_reset_requested: Callable[[str], None] = lambda email: None
    #: ``has_played(user)``: whether the user ever held a seat (an account that has played
    #: cannot become a bot account).
    has_played: Callable[[User], bool] = lambda user: False


_hooks: list[AccountHooks] = []


def account_hook_register(hooks: AccountHooks) -> None:
    if hooks not in _hooks:
        _hooks.append(hooks)


def account_hooks() -> tuple[AccountHooks, ...]:
    return tuple(_hooks)
