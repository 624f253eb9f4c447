"""The Web Push channel: "your move" and "deadline soon" as browser notifications.

Messages are encrypted for each subscription (RFC 8291, ``aes128gcm``) and signed with the
server's VAPID key pair (RFC 8292) from ``FACEDOWN_VAPID_PRIVATE_KEY`` /
``FACEDOWN_VAPID_PUBLIC_KEY``, which every machine shares (``manage.py vapid_keys`` makes a
pair). Subscription endpoints pass the SSRF guard when registered and before each message; a
push service that answers 404 or 410 has dropped the subscription, so it is deleted here too.
Without keys configured the channel sends nothing (and the public key endpoint says so).
Each message's words are in its recipient's language (``core.languages.language_of``).
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Sequence
from typing import Any

import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from accounts.models import User
from core.errors import NotFound, ValidationFailed
from core.languages import supported
from notify.models import PushSubscription
from notify.preferences import PUSH_PREFERENCE, settings_of
from notify.ssrf import UnsafeTarget, target_check

log = logging.getLogger(__name__)

MAX_SUBSCRIPTIONS_PER_USER = 20


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_keys_new() -> tuple[str, str]:
    """A new VAPID pair: (private: base64url of the 32-byte scalar, public: base64url of the
    uncompressed P-256 point, the ``applicationServerKey`` browsers subscribe with)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_numbers()
    point = b"\x04" + public.x.to_bytes(32, "big") + public.y.to_bytes(32, "big")
    return _b64url(private), _b64url(point)


def vapid_public_key() -> str:
    return str(settings.FACEDOWN_VAPID_PUBLIC_KEY)


def push_subscribe(*, user: User, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    try:
        target_check(endpoint, resolve=False)  # its DNS answers are checked before each push
    except UnsafeTarget as exc:
        raise ValidationFailed({"endpoint": [str(exc)]}) from None
    try:
        point, secret = _unb64url(p256dh), _unb64url(auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise ValidationFailed(
            {"keys.p256dh": [gettext_noop("Not a P-256 public key (base64url).")]}
        ) from None
    if len(secret) != 16:
        raise ValidationFailed({"keys.auth": [gettext_noop("16 bytes, base64url.")]})
    if PushSubscription.objects.filter(user=user).count() >= MAX_SUBSCRIPTIONS_PER_USER:
        raise ValidationFailed(
            {"endpoint": [gettext_noop("Too many push subscriptions on this account.")]}
        )
    found, _ = PushSubscription.objects.update_or_create(
        endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth}
    )
    return found


def push_unsubscribe(*, user: User, subscription_id: int) -> None:
    deleted, _ = PushSubscription.objects.filter(user=user, pk=subscription_id).delete()
    if not deleted:
        raise NotFound(gettext_noop("No such push subscription."))


def _message(item: dict[str, Any]) -> dict[str, Any]:
    """The notification's title and body in the active language, and where it leads."""
    words = {"game": item.get("game", ""), "step": item.get("step")}
    if item["type"] == "deadline_soon" and item.get("within") == "byoyomi":
        title = gettext("Byo-yomi")
        body = gettext("Your main time in %(game)s is spent: step %(step)s waits.") % words
    elif item["type"] == "deadline_soon":
        if item.get("within") == "1h":
            title = gettext("Due within 1 hour")
        else:
            title = gettext("Due within 24 hours")
        body = gettext("Your move in %(game)s, step %(step)s.") % words
    elif item["type"] == "auto_vacation":
        until = str(item.get("until", "")).replace("T", " ")[:16]
        title = gettext("On vacation")
        body = gettext("Your clock in %(game)s ran out: vacation until %(until)s UTC.") % {
            **words,
            "until": until,
        }
    elif item["type"] == "proposal":
        if item.get("kind") == "pause":
            title = gettext("Pause proposed")
        else:
            title = gettext("Abort proposed")
        body = gettext("%(game)s: accept or decline.") % words
    elif item["type"].startswith("tournament_"):
        return _tournament_message(item)
    elif item["type"] == "proposal_answered":
        if item.get("answer") == "accepted":
            title = gettext("Proposal accepted")
        else:
            title = gettext("Proposal declined")
        body = gettext("%(game)s: your proposal.") % words
    else:
        title, body = (
            gettext("Your move"),
            gettext("%(game)s: step %(step)s waits for you.") % words,
        )
    return {
        "title": title,
        "body": body,
        "type": item["type"],
        "match": item["match"],
        "url": f"/matches/{item['match']}",
        "tag": f"{item['type']}:{item['match']}",
    }


def _tournament_message(item: dict[str, Any]) -> dict[str, Any]:
    words = {"name": item.get("name", ""), "round": item.get("round"), "place": item.get("place")}
    if item["type"] == "tournament_registration_open":
        title, body = gettext("Tournament invitation"), gettext("%(name)s: join it.") % words
    elif item["type"] == "tournament_round_started":
        title = gettext("Round %(round)s started") % words
        body = gettext("%(name)s: your match waits.") % words
    elif item["type"] == "tournament_stand_in":
        title = gettext("Stand-in")
        body = gettext("%(name)s: the round's time ran out, a bot finishes your match.") % words
    else:
        title = gettext("Tournament over")
        body = gettext("%(name)s: you finished in place %(place)s.") % words
    url = f"/tournaments/{item.get('tournament')}"
    return {
        "title": title,
        "body": body,
        "type": item["type"],
        "match": item.get("match"),
        "url": url,
        "tag": f"{item['type']}:{item.get('tournament')}:{item.get('round')}",
    }


def push_send(items: Sequence[dict[str, Any]]) -> int:
    """The job behind the channel: one message per subscription of each recipient who keeps
    the kind on. Returns how many were accepted by the push services."""
    private = settings.FACEDOWN_VAPID_PRIVATE_KEY
    if not private:
        return 0
    wanted = [item for item in items if item["type"] in PUSH_PREFERENCE]
    subscribed = set(
        PushSubscription.objects.filter(user_id__in={int(i["user"]) for i in wanted})
        .values_list("user_id", flat=True)
        .distinct()
    )
    wanted = [item for item in wanted if int(item["user"]) in subscribed]
    if not wanted:
        return 0
    # Each recipient's language, in one query (the profile's, else the default).
    languages = {
        pk: supported(language) or settings.LANGUAGE_CODE
        for pk, language in User.objects.filter(
            pk__in={int(i["user"]) for i in wanted}
        ).values_list("pk", "language")
    }
    vapid = Vapid02.from_raw(private.encode())
    session = requests.Session()
    session.max_redirects = 0  # a push service does not redirect; a redirect could go inward
    sent = 0
    for item in wanted:
        preference = PUSH_PREFERENCE.get(item["type"])
        user_id = int(item["user"])
        if preference is None or not getattr(settings_of(user_id), preference):
            continue
        with translation.override(languages.get(user_id, settings.LANGUAGE_CODE)):
            data = json.dumps(_message(item))
        for subscription in PushSubscription.objects.filter(user_id=user_id):
            sent += _push_one(subscription, data, vapid, session)
    return sent


def _push_one(
    subscription: PushSubscription, data: str, vapid: Vapid02, session: requests.Session
) -> int:
    try:
        target_check(subscription.endpoint)
    except UnsafeTarget:
        return 0
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    try:
        webpush(
            info,
            data=data,
            vapid_private_key=vapid,
            vapid_claims={"sub": settings.FACEDOWN_VAPID_SUBJECT},
            ttl=24 * 3600,
            timeout=settings.FACEDOWN_WEBHOOK_TIMEOUT_SECONDS,
            requests_session=session,
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (404, 410):
            subscription.delete()
        log.warning("push to subscription %s failed (%s)", subscription.pk, status)
        return 0
    except requests.RequestException as exc:
        log.warning("push to subscription %s failed (%s)", subscription.pk, type(exc).__name__)
        return 0
    return 1
