"""Notification endpoints under /api/v1/accounts/: each validates, calls one service, answers."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.requester import requester
from core.api.input import validated
from core.errors import NotFound, ValidationFailed
from core.input import NO_CONTROL_PATTERN as TOKEN_PATTERN
from core.languages import language_of
from games.api.params import lookup_text
from notify import serializers as s
from notify.calendar import CALENDAR_KEY_MAX_LENGTH, calendar_feed
from notify.mail import email_verify, unsubscribe
from notify.models import NotificationSettings, Webhook, WebhookDelivery
from notify.preferences import (
    CHANGEABLE,
    calendar_key_reset,
    email_verified,
    preferences_update,
    settings_of,
)
from notify.push import push_subscribe, push_unsubscribe, vapid_public_key
from notify.webhooks import webhook_create, webhook_delete, webhook_of

TAGS = ["notifications"]
BAD_LINK = gettext_noop("The link is invalid or has expired.")


def _token(request: Request) -> str:
    token = lookup_text(request.query_params.get("token"), max_length=500)
    if token is None:
        raise ValidationFailed({"token": [BAD_LINK]})
    return token


def _calendar_url(prefs: NotificationSettings) -> str:
    base = settings.FACEDOWN_PUBLIC_URL.rstrip("/")
    return f"{base}/api/v1/accounts/me/deadlines.ics?key={prefs.calendar_key}"


def _preferences(user: User, prefs: NotificationSettings) -> dict[str, Any]:
    return {
        **{name: getattr(prefs, name) for name in sorted(CHANGEABLE)},
        "email": user.email,
        "email_verified": email_verified(user, prefs),
        "your_move_interval_seconds": int(settings.FACEDOWN_MAIL_YOUR_MOVE_INTERVAL),
        "calendar_url": _calendar_url(prefs),
    }


class PreferencesApi(APIView):
    throttle_scope = {"GET": "reads", "PATCH": "notify"}

    @extend_schema(responses={200: s.PreferencesOutput}, tags=TAGS)
    def get(self, request: Request) -> Response:
        user = requester(request)
        return Response(_preferences(user, settings_of(user.pk)))

    @extend_schema(
        request=s.PreferencesInput,
        responses={200: s.PreferencesOutput},
        tags=TAGS,
        description="Turn notification kinds on or off, per channel. Notification types:\n\n"
        + s.kinds_table(),
    )
    def patch(self, request: Request) -> Response:
        user = requester(request)
        prefs = preferences_update(user=user, changes=validated(s.PreferencesInput, request))
        return Response(_preferences(user, prefs))


def _webhook(hook: Webhook) -> dict[str, Any]:
    return dict(s.WebhookOutput(hook).data)


class WebhooksApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "notify"}

    @extend_schema(responses={200: s.WebhookOutput(many=True)}, tags=TAGS)
    def get(self, request: Request) -> Response:
        return Response([_webhook(h) for h in Webhook.objects.filter(user=requester(request))])

    @extend_schema(
        request=s.WebhookInput,
        responses={201: s.WebhookCreatedOutput},
        tags=TAGS,
        description="Register a URL to receive notifications as signed JSON POSTs (docs/"
        "notifications.md). The body is the notification, e.g. "
        f"`{json.dumps(s.notification_example())}`; the header `X-Facedown-Signature: "
        't=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` signs it. The secret is shown '
        "only in this answer. URLs resolving to private, loopback or link-local addresses are "
        "refused (`validation_error`). Failed deliveries are retried with exponential back-off; "
        "a hook that keeps failing is disabled and you are told by mail.",
    )
    def post(self, request: Request) -> Response:
        data = validated(s.WebhookInput, request)
        hook = webhook_create(
            user=requester(request), url=data["url"], event_types=data.get("event_types", [])
        )
        return Response({**_webhook(hook), "secret": hook.secret}, status=status.HTTP_201_CREATED)


class WebhookApi(APIView):
    throttle_scope = {"GET": "reads", "DELETE": "notify"}

    @extend_schema(responses={200: s.WebhookOutput}, tags=TAGS)
    def get(self, request: Request, webhook_id: int) -> Response:
        return Response(_webhook(webhook_of(user=requester(request), webhook_id=webhook_id)))

    @extend_schema(
        responses={204: OpenApiResponse(description="The webhook is deleted.")}, tags=TAGS
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        webhook_delete(user=requester(request), webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveriesApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.DeliveryOutput(many=True)},
        tags=TAGS,
        description="The webhook's last 100 deliveries, newest first, with their status.",
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        hook = webhook_of(user=requester(request), webhook_id=webhook_id)
        rows = WebhookDelivery.objects.filter(webhook=hook)[:100]
        return Response(s.DeliveryOutput(rows, many=True).data)


class PushSubscriptionsApi(APIView):
    throttle_scope = "notify"

    @extend_schema(
        request=s.PushSubscriptionInput,
        responses={201: s.PushSubscriptionOutput},
        tags=TAGS,
        description="Register a browser's Web Push subscription (`PushSubscription.toJSON()`); "
        "`your_move` and `deadline_soon` are pushed to it. Endpoints on private addresses are "
        "refused like webhooks.",
    )
    def post(self, request: Request) -> Response:
        data = validated(s.PushSubscriptionInput, request)
        found = push_subscribe(
            user=requester(request),
            endpoint=data["endpoint"],
            p256dh=data["keys"]["p256dh"],
            auth=data["keys"]["auth"],
        )
        return Response(s.PushSubscriptionOutput(found).data, status=status.HTTP_201_CREATED)


class PushSubscriptionApi(APIView):
    throttle_scope = "notify"

    @extend_schema(
        responses={204: OpenApiResponse(description="Nothing more is pushed to it.")}, tags=TAGS
    )
    def delete(self, request: Request, subscription_id: int) -> Response:
        push_unsubscribe(user=requester(request), subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PushKeyApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "reads"

    @extend_schema(responses={200: s.PushKeyOutput}, tags=TAGS)
    def get(self, request: Request) -> Response:
        return Response({"public_key": vapid_public_key()})


class CalendarRenderer(BaseRenderer):
    media_type = "text/calendar"
    format = "ics"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: Any = None, context: Any = None) -> bytes:
        if isinstance(data, bytes):
            return data
        return json.dumps(data).encode()  # a problem+json answer


class CalendarApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    renderer_classes = [CalendarRenderer]
    throttle_scope = "reads"

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # Always iCalendar (``?format=`` and Accept cannot ask for another rendering); errors
        # are still problem+json (their content type is set by the problem handler).
        return CalendarRenderer(), CalendarRenderer.media_type

    @extend_schema(
        parameters=[
            OpenApiParameter("key", OpenApiTypes.STR, required=True, description="The feed key.")
        ],
        responses={
            (200, "text/calendar"): OpenApiResponse(
                OpenApiTypes.STR,
                description="iCalendar: one VEVENT per match waiting for your move, ending at "
                "its deadline.",
            ),
            404: OpenApiResponse(description="not_found: no calendar has this key."),
        },
        tags=TAGS,
        description="Your move deadlines as a calendar feed, for calendar apps (no token: the "
        "private key in `calendar_url` of `/accounts/me/notifications` is the credential).",
    )
    def get(self, request: Request) -> Response:
        key = lookup_text(request.query_params.get("key"), max_length=CALENDAR_KEY_MAX_LENGTH)
        feed = calendar_feed(key) if key is not None else None
        if feed is None:
            raise NotFound(gettext_noop("No calendar has this key."))
        return Response(feed, content_type="text/calendar; charset=utf-8")


class CalendarKeyApi(APIView):
    throttle_scope = "notify"

    @extend_schema(
        request=None,
        responses={200: s.CalendarKeyOutput},
        tags=TAGS,
        description="A new calendar key: the old feed URL stops working.",
    )
    def post(self, request: Request) -> Response:
        prefs = calendar_key_reset(user=requester(request))
        return Response({"calendar_url": _calendar_url(prefs)})


BAD_TOKEN = OpenApiResponse(description="validation_error: the link is invalid or has expired.")
#: As ``_token`` reads it: 1 to 500 characters, no control character (anything else is
#: ``validation_error``, the link's error).
TOKEN = OpenApiParameter(
    "token",
    {"type": "string", "minLength": 1, "maxLength": 500, "pattern": TOKEN_PATTERN},
    required=True,
    description="From the mail.",
)


class EmailVerifyApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "notify"

    @extend_schema(
        parameters=[TOKEN],
        responses={200: s.DoneOutput, 400: BAD_TOKEN},
        tags=TAGS,
        description="The signed link mailed when an address is set: marks it verified.",
    )
    def get(self, request: Request) -> Response:
        user = email_verify(_token(request))
        if user is None:
            raise ValidationFailed({"token": [BAD_LINK]})
        # In the language of the link's owner, whoever opens it (the same answer for any reader).
        with translation.override(language_of(user)):
            detail = gettext("Your address is verified: notifications may be mailed.")
        return Response({"detail": detail})


class UnsubscribeApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "notify"

    def _answer(self, request: Request) -> Response:
        done = unsubscribe(_token(request))
        if done is None:
            raise ValidationFailed({"token": [BAD_LINK]})
        user, preference = done
        with translation.override(language_of(user)):
            detail = gettext("Unsubscribed: %(preference)s is off.") % {"preference": preference}
        return Response({"detail": detail})

    @extend_schema(
        parameters=[TOKEN],
        responses={200: s.DoneOutput, 400: BAD_TOKEN},
        tags=TAGS,
        description="The one-click unsubscribe link of every notification mail.",
    )
    def get(self, request: Request) -> Response:
        return self._answer(request)

    @extend_schema(
        parameters=[TOKEN],
        request=None,
        responses={200: s.DoneOutput, 400: BAD_TOKEN},
        tags=TAGS,
        description="RFC 8058 one-click unsubscribe (`List-Unsubscribe-Post`).",
    )
    def post(self, request: Request) -> Response:
        return self._answer(request)
