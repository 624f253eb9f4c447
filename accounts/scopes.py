"""What a personal access token may do: its scopes, and the one each route asks for.

A view names the scope its unsafe methods need in ``token_scope`` (a scope, or one per method);
its safe methods need ``read`` unless it says otherwise. ``play`` means ``bot:play`` for a bot
account, which plays with nothing else. A request with the web session (or no credential) is
not limited by scopes: its other permissions decide.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_noop
from rest_framework.permissions import SAFE_METHODS, BasePermission

from core.errors import InsufficientScope
from core.text import Text

READ = "read"
PLAY = "play"
BOT_PLAY = "bot:play"
CHALLENGE = "challenge"
ACCOUNT = "account"
TOURNAMENT = "tournament"
SCOPES: tuple[str, ...] = (READ, PLAY, BOT_PLAY, CHALLENGE, ACCOUNT, TOURNAMENT)

DESCRIPTIONS: dict[str, str] = {
    READ: gettext_noop("Read matches, events, streams, games, players and your account."),
    PLAY: gettext_noop(
        "Includes read. Create, join, decline and resign matches; move, reveal, chat, seek "
        "(people only)."
    ),
    BOT_PLAY: gettext_noop(
        "Includes read. The same for a bot account, which plays with no other scope."
    ),
    CHALLENGE: gettext_noop("Send, accept, decline and cancel challenges; bulk pairings."),
    ACCOUNT: gettext_noop(
        "Change the account: e-mail, password, tokens, notifications, webhooks, export."
    ),
    TOURNAMENT: gettext_noop(
        "Create, join and withdraw from tournaments; the organiser's actions."
    ),
}


@dataclass(frozen=True)
class TokenGrant:
    """``request.auth`` of a request authenticated by an access token."""

    id: int
    #: As granted, with ``read`` added to ``play`` and ``bot:play`` (a player reads the match).
    scopes: frozenset[str]
    #: When the token expires, in seconds since the epoch (None: never).
    expires: float | None = None

    @classmethod
    def of(cls, token_id: int, scopes: list[str], expires: float | None) -> TokenGrant:
        granted = set(scopes)
        if granted & {PLAY, BOT_PLAY}:
            granted.add(READ)
        return cls(token_id, frozenset(granted), expires)


#: What a bot account's web session may not do: play, challenge, enter tournaments (its
#: tokens may, with these scopes).
SESSION_BARRED = frozenset({BOT_PLAY, CHALLENGE, TOURNAMENT})


def needed_scope(view: Any, method: str, is_bot: bool) -> str:
    declared = getattr(view, "token_scope", None)
    if isinstance(declared, dict):
        scope = declared.get(method)
    elif method in SAFE_METHODS:
        scope = None
    else:
        scope = declared
    if scope is None:
        scope = READ if method in SAFE_METHODS else ACCOUNT
    return BOT_PLAY if scope == PLAY and is_bot else scope


class ScopesAllow(BasePermission):
    """Refuses a token request whose token lacks the route's scope, and a bot account's play
    that does not come with a ``bot:play`` token."""

    def has_permission(self, request: Any, view: Any) -> bool:
        grant = request.auth
        user = request.user
        is_bot = bool(getattr(user, "is_bot", False))
        if not isinstance(grant, TokenGrant):
            # A bot account's web session never plays nor starts a match: no move, no
            # challenge (a house bot's starts at once), no tournament entry.
            if is_bot and needed_scope(view, request.method, True) in SESSION_BARRED:
                raise InsufficientScope(
                    gettext_noop(
                        "A bot account plays and challenges only with a token, not from the web."
                    )
                )
            return True
        scope = needed_scope(view, request.method, is_bot)
        if scope not in grant.scopes:
            raise InsufficientScope(
                Text(gettext_noop("This token lacks the %(scope)s scope."), scope=repr(scope))
            )
        return True
