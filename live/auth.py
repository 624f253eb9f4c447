"""Who opens a stream: a stream ticket (``?ticket=``), the API token, or the web session.

``EventSource`` cannot send headers, so a client first asks ``POST
/api/v1/accounts/stream-ticket`` (with its token or session) for a ticket naming the streams
it will open: ``match:<id>`` and ``me``. The ticket is signed with the secret key
(``django.core.signing``), holds no secret of its own, and opens (and re-opens, for
``EventSource``'s automatic reconnects) the streams it names for
``FACEDOWN_LIVE_TICKET_SECONDS``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.exceptions import AuthenticationFailed

from accounts.authentication import CachedTokenAuthentication
from accounts.models import User
from core.errors import FacedownError, PermissionDenied

_SALT = "facedown.live.stream-ticket"
ME = "me"


class NotAuthenticated(FacedownError):
    status, code, title = 401, "not_authenticated", "Not authenticated"
    default_detail = "Authentication credentials were not provided."


def ticket_issue(user: User, streams: list[str]) -> dict[str, Any]:
    """A ticket for ``user`` opening ``streams`` (``match:<id>`` or ``me``)."""
    ticket = signing.dumps({"u": user.pk, "s": sorted(set(streams))}, salt=_SALT)
    expires = timezone.now() + timedelta(seconds=settings.FACEDOWN_LIVE_TICKET_SECONDS)
    return {"ticket": ticket, "streams": sorted(set(streams)), "expires_at": expires}


def _ticket_user(ticket: str, stream: str) -> User:
    try:
        payload = signing.loads(ticket, salt=_SALT, max_age=settings.FACEDOWN_LIVE_TICKET_SECONDS)
    except signing.SignatureExpired:
        raise NotAuthenticated("The stream ticket has expired; ask for a new one.") from None
    except signing.BadSignature:
        raise NotAuthenticated("Invalid stream ticket.") from None
    if stream not in payload.get("s", ()):
        raise PermissionDenied("This ticket does not open this stream.")
    user = User.objects.filter(pk=payload.get("u"), is_active=True).first()
    if user is None:
        raise NotAuthenticated("Invalid stream ticket.")
    return user


def stream_user(request: HttpRequest, stream: str) -> User:
    """The user opening ``stream``, or ``NotAuthenticated``/``PermissionDenied``. Synchronous:
    it may read the database."""
    ticket = request.GET.get("ticket")
    if ticket is not None:
        return _ticket_user(ticket, stream)
    words = request.headers.get("Authorization", "").split()
    if words and words[0].lower() == "token":
        if len(words) != 2:
            raise NotAuthenticated("Invalid token header.")
        try:
            user, _ = CachedTokenAuthentication().authenticate_credentials(words[1])
        except AuthenticationFailed as exc:
            raise NotAuthenticated(str(exc.detail)) from None
        return user  # type: ignore[no-any-return]
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user  # type: ignore[no-any-return]
    raise NotAuthenticated()
