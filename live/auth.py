"""Who opens a stream: a stream ticket (``?ticket=``), the API token, or the web session; and
whether that credential still stands while the stream stays open.

``EventSource`` cannot send headers, so a client first asks ``POST
/api/v1/accounts/stream-ticket`` (with its token or session) for a ticket naming the streams
it will open: ``match:<id>`` and ``me``. The ticket is signed with the secret key
(``django.core.signing``), holds no secret of its own, and opens (and re-opens, for
``EventSource``'s automatic reconnects) the streams it names for
``FACEDOWN_LIVE_TICKET_SECONDS``, as long as the credential that asked for it stands: it names
a digest of the token that issued it (gone once the token is revoked), or, issued to the web
session, the number of the last token revocation then (any later revocation of its user, a
logout included, refuses it).

A stream keeps its ``Credential`` and checks it again (``credential_valid``) when a revocation
notice for its user arrives, and at keep-alives after the process saw a revocation of that
user in the database (``live.revocations``), in case a notice was lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.core import signing
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_noop
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import token_from_header, token_identity
from accounts.models import AccessToken, TokenRevocation, User
from accounts.revocation import revocation_last
from accounts.scopes import READ
from core.errors import FacedownError, InsufficientScope, PermissionDenied

_SALT = "facedown.live.stream-ticket"
ME = "me"


class NotAuthenticated(FacedownError):
    status, code, title = 401, "not_authenticated", "Not authenticated"
    default_detail = "Authentication credentials were not provided."


@dataclass
class Credential:
    """What opened a stream: the user and what must still stand for the stream to go on."""

    user: User
    #: The access token's id: the stream ends when the token is gone (revoked, logged out,
    #: password changed, account closed) or expired.
    token: int | None = None
    #: When the token expires (epoch seconds): the stream ends then.
    expires: float | None = None
    #: The web session's key (kept in this process's memory only, never sent anywhere).
    session: str | None = None
    #: The number of the last token revocation when the credential was issued: for a web
    #: session (or a ticket it issued), any later revocation of the user ends it. Also where
    #: the keep-alive check starts (``live.revocations``).
    since: int = 0


def ticket_issue(user: User, streams: list[str], *, token: int | None = None) -> dict[str, Any]:
    """A ticket for ``user`` opening ``streams`` (``match:<id>`` or ``me``), bound to the
    access token ``token`` (its id) or, without one, to the user's revocations so far (a
    ticket the web session asks for)."""
    payload: dict[str, Any] = {"u": user.pk, "s": sorted(set(streams))}
    if token is not None:
        payload["t"] = token
    else:
        payload["r"] = revocation_last()
    ticket = signing.dumps(payload, salt=_SALT)
    expires = timezone.now() + timedelta(seconds=settings.FACEDOWN_LIVE_TICKET_SECONDS)
    return {"ticket": ticket, "streams": sorted(set(streams)), "expires_at": expires}


def _session_user(session_key: str) -> Any:
    """The user of the web session ``session_key`` as Django's own ``get_user`` finds it (an
    anonymous user once it was logged out, or its password changed)."""
    holder = HttpRequest()
    holder.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return get_user(holder)


def credential_valid(credential: Credential) -> bool:
    """Whether the stream's credential still stands (synchronous: it reads the database)."""
    pk = credential.user.pk
    if credential.token is not None:
        alive = Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
        tokens = AccessToken.objects.filter(alive, pk=credential.token, user_id=pk)
        return tokens.filter(user__is_active=True).exists()
    if credential.session is not None:
        user = _session_user(credential.session)
        if not (user.is_authenticated and user.pk == pk and user.is_active):
            return False
    elif not User.objects.filter(pk=pk, is_active=True).exists():
        return False
    return not TokenRevocation.objects.filter(user_id=pk, seq__gt=credential.since).exists()


def _ticket_credential(ticket: str, stream: str) -> Credential:
    try:
        payload = signing.loads(ticket, salt=_SALT, max_age=settings.FACEDOWN_LIVE_TICKET_SECONDS)
    except signing.SignatureExpired:
        raise NotAuthenticated(
            gettext_noop("The stream ticket has expired; ask for a new one.")
        ) from None
    except signing.BadSignature:
        raise NotAuthenticated(gettext_noop("Invalid stream ticket.")) from None
    if stream not in payload.get("s", ()):
        raise PermissionDenied(gettext_noop("This ticket does not open this stream."))
    user = User.objects.filter(pk=payload.get("u"), is_active=True).first()
    token, since = payload.get("t"), payload.get("r")
    if user is None or (token is None and not isinstance(since, int)):
        raise NotAuthenticated(gettext_noop("Invalid stream ticket."))
    if isinstance(token, int):
        expires = AccessToken.objects.filter(pk=token).values_list("expires_at", flat=True).first()
        credential = Credential(
            user,
            token=token,
            expires=expires.timestamp() if expires else None,
            since=revocation_last(),
        )
    else:
        credential = Credential(user, since=since)
    if not credential_valid(credential):
        raise NotAuthenticated(gettext_noop("The credential that issued this ticket was revoked."))
    return credential


def stream_credential(request: HttpRequest, stream: str) -> Credential:
    """What opens ``stream``, or ``NotAuthenticated``/``PermissionDenied``. Synchronous: it
    reads the database."""
    ticket = request.GET.get("ticket")
    if ticket is not None:
        return _ticket_credential(ticket, stream)
    header = request.headers.get("Authorization", "")
    try:
        secret = token_from_header(header)
        if secret is not None:
            since = revocation_last()
            user, grant = token_identity(secret)
            if READ not in grant.scopes:
                raise InsufficientScope(gettext_noop("This token lacks the 'read' scope."))
            return Credential(user, token=grant.id, expires=grant.expires, since=since)
    except AuthenticationFailed as exc:
        raise NotAuthenticated(str(exc.detail)) from None
    visitor = getattr(request, "user", None)
    if visitor is not None and visitor.is_authenticated:
        session = getattr(request, "session", None)
        key = session.session_key if session is not None else None
        return Credential(visitor, session=key, since=revocation_last())
    raise NotAuthenticated()
